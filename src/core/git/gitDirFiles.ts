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

export type KeptGitDirFile = NonNullable<Manifest['gitDirFiles']>[number];

/** The kept files the walk of the worktree's private git dir found, read byte for byte. */
export async function captureGitDirFiles(gitDir: string, walk: Walk): Promise<KeptGitDirFile[]> {
  const found = walk.entries.filter((e) => e.type === 'file' && isKeptGitDirFile(e.path));
  return Promise.all(found.map(async (e) => ({ path: e.path, base64: (await fs.readFile(path.join(gitDir, e.path))).toString('base64') })));
}

/**
 * Into the restored worktree's private git dir (made by this restore's `worktree add`, which may have
 * copied the main worktree's sparse checkout there: the agent's own replaces it, or, when the agent
 * had none, it goes). Older evidence (`files` undefined) leaves the git dir as `worktree add` made it.
 */
export async function restoreGitDirFiles(gitDir: string, files: readonly KeptGitDirFile[] | undefined): Promise<string[]> {
  if (files === undefined) return [];
  const problems: string[] = [];
  const what = (name: string) => ((KEPT_GIT_DIR_FILES as readonly string[]).includes(name) ? 'its sparse checkout' : 'the git operation stopped there');
  for (const name of KEPT_GIT_DIR_FILES) {
    if (files.some((f) => f.path === name)) continue;
    await fs.rm(path.join(gitDir, name), { force: true }).catch((err: NodeJS.ErrnoException) => problems.push(`the worktree's ${name} (${what(name)}) is not as it was (${err.code ?? 'error'})`));
  }
  for (const kept of files) {
    // The schema admits only names inside the git dir (isKeptGitDirFile): checked again where it is written.
    if (!isKeptGitDirFile(kept.path)) continue;
    const file = path.join(gitDir, ...kept.path.split('/'));
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, Buffer.from(kept.base64, 'base64'));
    } catch (err) {
      problems.push(`the worktree's ${kept.path} (${what(kept.path)}) is not as it was (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return problems;
}
