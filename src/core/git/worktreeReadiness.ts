/**
 * Whether what is in a worktree may be taken as its branch's work: not while
 * a git operation stopped half-way there (a merge, a rebase…) or files are left
 * unmerged — committing or landing then would take conflict markers, or put
 * the work on the operation's detached HEAD — and only while HEAD is on the
 * branch, or holds nothing the branch lacks.
 */
import { failure, type PaddockError } from '../common/errors';
import { currentBranch, headCommit, operationInProgress } from './checkout';
import { unmergedPaths } from './landBranch';
import { fewPaths } from './landingConflict';
import { isAncestor } from './mergeTree';

/** Refuses, in one sentence, a worktree where a git operation stopped half-way or files are unmerged. `who`: how it is named ("Agent abc's worktree /x"). */
export async function assertNothingHalfDone(worktree: string, who: string): Promise<void> {
  const [busy, unmerged] = await Promise.all([operationInProgress(worktree), unmergedPaths(worktree)]);
  const refusal = halfDoneRefusal(who, busy, unmerged);
  if (refusal) throw refusal;
}

/** `assertNothingHalfDone`'s sentence for what a caller read itself (`busy`: `operationInProgress`'s answer), or null. */
export function halfDoneRefusal(who: string, busy: string | null, unmerged: readonly string[]): PaddockError | null {
  if (busy) return failure(`${who} has ${busy} in progress; finish or abort it there first — nothing was changed.`, 'WORKTREE_BUSY');
  if (unmerged.length > 0) return failure(`${who} has unmerged files (${fewPaths(unmerged)}), conflict markers perhaps; resolve them there first — nothing was changed.`, 'WORKTREE_BUSY');
  return null;
}

export interface HeadPlace {
  /** The branch checked out (short name), or null when HEAD is detached. */
  branch: string | null;
  head: string;
  /** HEAD's commit is in `branch`'s tip: nothing committed there is missing from the branch. */
  inBranch: boolean;
}

/** Where HEAD is in `worktree` against `branch` (whose tip is `tip`); null when HEAD is on `branch`. */
export async function headAwayFrom(worktree: string, branch: string, tip: string): Promise<HeadPlace | null> {
  const current = await currentBranch(worktree);
  if (current === branch) return null;
  const head = await headCommit(worktree);
  return { branch: current, head, inBranch: await isAncestor(worktree, head, tip) };
}

/** "on branch other" / "detached at 1234567", for a sentence. */
export function describeHead(place: HeadPlace): string {
  return place.branch !== null ? `on branch ${place.branch}` : `detached at ${place.head.slice(0, 7)}`;
}
