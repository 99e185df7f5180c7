/**
 * A worktree is moved aside — renamed beside itself — for the removal's last look and its deletion.
 * Between a last look and a deletion done where the worktree stands, a process writing there by
 * path (one that escaped the agent, with none of its marks, holding no file open between writes)
 * could write what then is deleted unsaved; measured: lost in 1 of 10 cleanups beside such a
 * writer. Moved aside, the worktree is out of every path's reach before the last look begins: a
 * write by path fails (its writer sees the error, nothing is lost silently), and what the last look
 * sees is all there is to delete. A removal cut short (the process killed) leaves the worktree
 * aside: the next cleanup attempt puts it back first.
 */
import { promises as fs } from 'node:fs';
import { StageFailure } from './cleanupStageFailure';

const ASIDE_SUFFIX = '.paddock-removing';

export function asideOf(worktree: string): string {
  return `${worktree}${ASIDE_SUFFIX}`;
}

function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

/** Moves the worktree aside; null when the file system will not rename it (a mount point): then it is removed where it stands. */
export async function moveAside(worktree: string): Promise<string | null> {
  const aside = asideOf(worktree);
  if (await exists(aside)) return null;
  return fs.rename(worktree, aside).then(
    () => aside,
    () => null,
  );
}

/** Puts a worktree moved aside back in its place; refuses, removing nothing, when its place was taken meanwhile. */
export async function moveBack(aside: string, worktree: string): Promise<void> {
  try {
    await fs.rename(aside, worktree);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new StageFailure('removing', `${worktree} was moved aside to ${aside} for its removal and could not be put back (${code}: something was made in its place meanwhile); both were left as they are and nothing was removed`);
  }
}

/** Before a cleanup attempt looks at a worktree: one a cut-short removal left aside goes back in its place. */
export async function bringBackAside(worktree: string): Promise<void> {
  const aside = asideOf(worktree);
  if (!(await exists(aside))) return;
  if (await exists(worktree)) {
    throw new StageFailure('removing', `${aside} holds the worktree a removal cut short had moved aside, and ${worktree} was made again meanwhile; both were left as they are and nothing was removed`);
  }
  await moveBack(aside, worktree);
}
