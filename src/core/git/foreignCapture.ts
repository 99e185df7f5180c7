/**
 * The capture's two steps for worktrees of another repository inside the agent's
 * (foreignWorktrees.ts): finding them, with the consent reason their staged changes are, before
 * anything else may stop the capture (so that every stop names it, and consent given to one is
 * given knowing it); and, once all evidence is written, putting their bundles in place, durably.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { syncDir } from './archive';
import { commonDirOf } from './headFiles';
import type { NestedRepo } from './inventory';
import { outsideWorktreesOf, outsideWorktreeWords, type OutsideWorktree } from './outsideWorktrees';
export { withOutsideWorktrees } from './outsideWorktrees';
import { FOREIGN_DIR, foreignStagedSentence, foreignWorktreesIn, foreignWorktreeStaged, insideLinkedWords, type ForeignWorktree } from './foreignWorktrees';

/** `outside`: bounded words for a consent stop; `outsideWords`: every one, and the nested repositories' own linked worktrees inside, for the summary (`summaryWorktreeWords`). */
export async function findForeignWorktrees(worktree: string, nested: readonly NestedRepo[], ownGitDir: string): Promise<{ found: ForeignWorktree[]; stop: string | null; outside: string[]; outsideWords: string[]; outsideKept: { outside?: Omit<OutsideWorktree, 'branch'>[]; outsideAll?: true } }> {
  const { found, inside } = await foreignWorktreesIn(worktree, nested, ownGitDir, await commonDirOf(ownGitDir));
  const staged = await foreignWorktreeStaged(worktree, found);
  // The other way round: a nested repository's linked worktrees outside this one, in words for the summary (outsideWorktrees.ts).
  // Words for the summary, and for the inventory what restore links again (`outsideKept`, spread into it).
  // Every one is recorded for restore (a list cut at 200 left the rest naming a gone git dir); the words are bounded.
  const records = await outsideWorktreesOf(worktree, nested);
  const outsideKept = records.length > 0 ? { outside: records.map(({ repo, id, folder, gitdir, common, away }) => ({ repo, id, folder, gitdir, ...(common === undefined ? {} : { common }), ...(away ? { away } : {}) })), outsideAll: true as const } : {};
  const outside = outsideWorktreeWords(records);
  // The summary also says what a nested repository's own linked worktree inside is (not another
  // repository's: bug 225); a consent stop has nothing to say of it, nothing of it being at stake.
  const outsideWords = [...insideLinkedWords(inside), ...outside];
  return { found, stop: foreignStagedSentence(staged, worktree, (p) => found.find((f) => f.path === p)?.repo ?? ''), outside: boundedWords(outside), outsideWords, outsideKept };
}

/**
 * The summary's words for worktrees of another repository inside the agent's, then linked ones
 * outside it: bounded once, over the joined list, so the line counting the rest is always last
 * (cutting an already bounded list after the others lost it, and the count with it).
 */
export function summaryWorktreeWords(words: string[]): string[] {
  if (words.length <= 200) return words;
  return [...words.slice(0, 199), `${words.length - 199} more worktrees of other repositories, inside the agent's worktree or linked to a repository in it from outside (the inventory records each, and restore puts each back)`];
}

/** At most 200 sentences for the summary and a consent stop, the last counting the rest. */
function boundedWords(words: string[]): string[] {
  if (words.length <= 200) return words;
  return [...words.slice(0, 199), `${words.length - 199} more linked worktrees outside the agent's worktree, the same (the inventory records each, and restore links each again)`];
}

/**
 * The new bundles are renamed into place (each synced already), then their folder synced. No earlier
 * bundle goes: one of a capture before a restore may be the only copy of its commits (the other
 * repository pruned them since), and the files restored from it are plain files now, so no later
 * capture bundles them again. Each capture's names are its own (foreignBundleName), so none is overwritten.
 */
export async function placeForeignBundles(evidenceDir: string, temps: readonly { temp: string; file: string }[]): Promise<void> {
  if (temps.length === 0) return;
  for (const t of temps) await fs.rename(t.temp, t.file);
  await syncDir(path.join(evidenceDir, FOREIGN_DIR));
}
