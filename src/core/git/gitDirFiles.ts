/**
 * A worktree's sparse checkout lives in its private git dir, not in its files:
 * the patterns (`info/sparse-checkout`) and the per-worktree config that turns
 * them on (`config.worktree`: core.sparseCheckout, core.sparseCheckoutCone).
 * Without them a restored worktree is a full checkout whose next `git checkout`
 * differs from the agent's. So does a merge, rebase, am, cherry-pick, revert or
 * bisect stopped half-way (MERGE_HEAD and MERGE_MSG, `rebase-merge/` with its
 * todo list, `sequencer/`, BISECT_LOG…): without its files the restored worktree
 * is no longer in the middle of it, and a plain `git commit` there makes another
 * commit than the agent's `--continue` would have. The capture reads them where
 * its walk of that git dir found them; restore writes them into the new
 * worktree's (or says why not).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isKeptGitDirFile, KEPT_GIT_DIR_FILES, type Manifest } from './evidenceManifest';
import type { Walk } from './inventory';
import { printable } from '../common/printable';
import { makeDirs } from '../common/makeDirs';
import { readGitBytes } from './gitFileText';

export type KeptGitDirFile = NonNullable<Manifest['gitDirFiles']>[number];

/**
 * The kept files the walk of the worktree's private git dir found, read byte for byte; `unread`:
 * those that could not be read (never dropped silently: the capture stops or records them). One
 * gone since the walk is no longer the worktree's state.
 */
export async function captureGitDirFiles(gitDir: string, walk: Walk): Promise<{ files: KeptGitDirFile[]; unread: string[] }> {
  const found = walk.entries.filter((e) => e.type === 'file' && isKeptGitDirFile(e.path));
  const files: KeptGitDirFile[] = [];
  const unread: string[] = [];
  await Promise.all(
    found.map(async (e) => {
      try {
        files.push({ path: e.path, base64: (await readGitBytes(path.join(gitDir, e.path))).toString('base64') });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') unread.push(e.path);
      }
    }),
  );
  // In the walk's order, whatever order the reads ended in.
  const order = new Map(found.map((e, i) => [e.path, i]));
  files.sort((a, b) => order.get(a.path)! - order.get(b.path)!);
  return { files, unread: unread.sort() };
}

const whatFileIsFor = (name: string) => ((KEPT_GIT_DIR_FILES as readonly string[]).includes(name) ? 'its sparse checkout' : 'the git operation stopped there');

/** At restore: the files the capture could not read (dropped with consent), said. */
export function unreadGitDirFiles(unread: readonly string[] | undefined): string[] {
  return (unread ?? []).map((name) => `the worktree's ${printable(name)} (${whatFileIsFor(name)}) could not be read at cleanup and is not back`);
}

/**
 * Into the restored worktree's private git dir (made by this restore's `worktree add`, which may have
 * copied the main worktree's sparse checkout there: the agent's own replaces it, or, when the agent
 * had none, it goes). Older evidence (`files` undefined) leaves the git dir as `worktree add` made it.
 */
export async function restoreGitDirFiles(gitDir: string, files: readonly KeptGitDirFile[] | undefined): Promise<string[]> {
  if (files === undefined) return [];
  const problems: string[] = [];
  const what = whatFileIsFor;
  for (const name of KEPT_GIT_DIR_FILES) {
    if (files.some((f) => f.path === name)) continue;
    await fs.rm(path.join(gitDir, name), { force: true }).catch((err: NodeJS.ErrnoException) => problems.push(`the worktree's ${name} (${what(name)}) is not as it was (${err.code ?? 'error'})`));
  }
  for (const kept of files) {
    // The schema admits only names inside the git dir (isKeptGitDirFile): checked again where it is written.
    if (!isKeptGitDirFile(kept.path)) continue;
    const file = path.join(gitDir, ...kept.path.split('/'));
    try {
      await makeDirs(path.dirname(file));
      await fs.writeFile(file, Buffer.from(kept.base64, 'base64'));
    } catch (err) {
      problems.push(`the worktree's ${kept.path} (${what(kept.path)}) is not as it was (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return problems;
}
