/**
 * A copied symlink whose target the worktree lacks. Bug 161 points a copied
 * link at the worktree's own path rather than the checkout's; when that path
 * is untracked and not copied itself (`.env -> local/env.real`, `local/`
 * ignored and not named by `copy`), the link dangled in the worktree yet was
 * counted as copied, where it used to read the checkout's file (the review of
 * bug 161). Such a link is replaced by a copy of the checkout's file it leads
 * to: the agent reads what the person has, and its writes stay in the
 * worktree. A link to a folder, to nothing, or out of the repository is left
 * out with why, never left dangling.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isWithin } from '../common/paths';
import { copyRegularFile } from './copyRegular';

/** Null when the copied link at `rel` leads somewhere in the worktree or was replaced by the file; else why it was removed. */
export async function settleCopiedLink(rel: string, plan: { repo: string; repoReal: string }, worktree: string): Promise<string | null> {
  const dest = path.join(worktree, rel);
  if (await leadsSomewhere(dest)) return null;
  const resolved = await resolvedTarget(path.join(plan.repo, rel));
  await fs.unlink(dest); // the link made moments ago, before the agent runs
  if (typeof resolved !== 'string') return resolved.why;
  // Judged again on what the checkout's link resolves to: its folders may lead out where its text did not.
  if (!isWithin(resolved, plan.repoReal)) return 'a symlink pointing outside the repository';
  if (!(await fs.stat(resolved)).isFile()) return 'a symlink to a folder the worktree does not have';
  return copyRegularFile(resolved, dest);
}

/** Whether following the link reaches something. */
async function leadsSomewhere(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return false;
    throw err;
  }
}

/**
 * Where a path resolves to, or why it resolves nowhere: a dangling symlink (a build's `result`
 * whose target was collected) or a loop is the path's own state, left out like a path that leads
 * out, not a reason to fail the start.
 */
export async function resolvedTarget(source: string): Promise<string | { why: string }> {
  try {
    return await fs.realpath(source);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    if (code === 'ENOENT') return { why: 'its target does not exist' };
    if (code === 'ELOOP') return { why: 'a symlink loop' };
    throw err;
  }
}
