/**
 * A worktree's sparse checkout lives in its private git dir, not in its files:
 * the patterns (`info/sparse-checkout`) and the per-worktree config that turns
 * them on (`config.worktree`: core.sparseCheckout, core.sparseCheckoutCone).
 * Without them a restored worktree is a full checkout whose next `git checkout`
 * differs from the agent's. The capture reads them where its walk of that git
 * dir found them; restore writes them into the new worktree's (or says why not).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { KEPT_GIT_DIR_FILES, type Manifest } from './evidenceManifest';
import type { Walk } from './inventory';

export type KeptGitDirFile = NonNullable<Manifest['gitDirFiles']>[number];

const isKept = (rel: string): rel is KeptGitDirFile['path'] => (KEPT_GIT_DIR_FILES as readonly string[]).includes(rel);

/** The kept files the walk of the worktree's private git dir found, read byte for byte. */
export async function captureGitDirFiles(gitDir: string, walk: Walk): Promise<KeptGitDirFile[]> {
  const found = walk.entries.filter((e) => e.type === 'file' && isKept(e.path));
  return Promise.all(found.map(async (e) => ({ path: e.path as KeptGitDirFile['path'], base64: (await fs.readFile(path.join(gitDir, e.path))).toString('base64') })));
}

/**
 * Into the restored worktree's private git dir (made by this restore's `worktree add`, which may have
 * copied the main worktree's sparse checkout there: the agent's own replaces it, or, when the agent
 * had none, it goes). Older evidence (`files` undefined) leaves the git dir as `worktree add` made it.
 */
export async function restoreGitDirFiles(gitDir: string, files: readonly KeptGitDirFile[] | undefined): Promise<string[]> {
  if (files === undefined) return [];
  const problems: string[] = [];
  for (const name of KEPT_GIT_DIR_FILES) {
    const file = path.join(gitDir, name);
    const kept = files.find((f) => f.path === name);
    try {
      if (!kept) {
        await fs.rm(file, { force: true });
        continue;
      }
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, Buffer.from(kept.base64, 'base64'));
    } catch (err) {
      problems.push(`the worktree's ${name} (its sparse checkout) is not as it was (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return problems;
}
