/**
 * The capture's two steps for worktrees of another repository inside the agent's
 * (foreignWorktrees.ts): finding them, with the consent reason their staged changes are, before
 * anything else may stop the capture (so that every stop names it, and consent given to one is
 * given knowing it); and, once all evidence is written, putting their bundles in place.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { commonDirOf } from './headFiles';
import type { NestedRepo } from './inventory';
import { FOREIGN_DIR, foreignStagedSentence, foreignWorktreesIn, foreignWorktreeStaged, type ForeignWorktree } from './foreignWorktrees';

export async function findForeignWorktrees(worktree: string, nested: readonly NestedRepo[], ownGitDir: string): Promise<{ found: ForeignWorktree[]; stop: string | null }> {
  const found = await foreignWorktreesIn(worktree, nested, ownGitDir, await commonDirOf(ownGitDir));
  const staged = await foreignWorktreeStaged(worktree, found);
  return { found, stop: foreignStagedSentence(staged, worktree, (p) => found.find((f) => f.path === p)?.repo ?? '') };
}

/** Earlier bundles go (a retried capture's), then the new ones are renamed into place. */
export async function placeForeignBundles(evidenceDir: string, temps: readonly { temp: string; file: string }[]): Promise<void> {
  const dir = path.join(evidenceDir, FOREIGN_DIR);
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (name.endsWith('.bundle')) await fs.rm(path.join(dir, name), { force: true });
  }
  for (const t of temps) await fs.rename(t.temp, t.file);
}
