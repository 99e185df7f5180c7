/**
 * Before a landing or an update takes an agent's work from its worktree:
 * refused, in one sentence and with nothing changed, while a git operation
 * stopped half-way there or files are unmerged (what would be taken holds
 * conflict markers), or while its HEAD is away from the agent's branch with
 * work that branch lacks (the branch would be landed without it).
 */
import { failure } from '../common/errors';
import { branchTip, describeHead, halfDoneRefusal, headAwayFrom, operationInProgress, unmergedPaths, type HeadPlace } from '../git';
import type { JobRecord } from '../store/schema';

/**
 * What may be taken while HEAD is away from the agent's branch: `nothing` (an update works on
 * the branch itself), `branch-has-it` (a landing of the branch: HEAD's commits are in it and no
 * uncommitted work is to be committed), `anything` (apply takes what is on disk, whatever HEAD is).
 */
export type HeadAway = 'nothing' | 'branch-has-it' | 'anything';

/** What the refusals are judged on, read at once (and, by a landing, while it reads the rest). */
export interface AgentWorktreeState {
  /** The git operation stopped half-way there ("a rebase"), or null. */
  busy: string | null;
  unmerged: string[];
  /** Where HEAD is when away from the agent's branch; null when on it (or when it is not asked). */
  away: HeadPlace | null;
}

/** `unmerged`: the worktree's unmerged paths when the caller reads them anyway (from its status), else read here. */
export async function readAgentWorktree(job: JobRecord, worktree: string, headAway: HeadAway, unmerged?: Promise<string[]>): Promise<AgentWorktreeState> {
  const branch = headAway === 'anything' ? null : job.branch;
  const [busy, unmergedNow, away] = await Promise.all([
    operationInProgress(worktree),
    unmerged ?? unmergedPaths(worktree),
    // A branch that is gone is refused by the operation itself, which says so.
    branch ? branchTip(job.repo, branch).then((tip) => (tip === null ? null : headAwayFrom(worktree, branch, tip))) : null,
  ]);
  return { busy, unmerged: unmergedNow, away };
}

/** Throws the one sentence when `state` says the work may not be taken. */
export function judgeAgentWorktree(job: JobRecord, worktree: string, state: AgentWorktreeState, opts: { headAway: HeadAway; takesUncommitted?: boolean }): void {
  const who = `Agent ${job.id}'s worktree ${worktree}`;
  const halfDone = halfDoneRefusal(who, state.busy, state.unmerged);
  if (halfDone) throw halfDone;
  const away = opts.headAway === 'anything' ? null : state.away;
  if (away === null) return;
  if (opts.headAway === 'nothing') {
    throw failure(`${who} is ${describeHead(away)}, not the agent's branch ${job.branch}; switch back to ${job.branch} there first — nothing was changed.`, 'WORKTREE_AWAY');
  }
  if (!away.inBranch || opts.takesUncommitted) {
    const what = !away.inBranch ? 'commits' : 'uncommitted work';
    throw failure(
      `${who} is ${describeHead(away)}, not the agent's branch ${job.branch}, with ${what} that branch lacks; switch back to ${job.branch} there (or land that work yourself) first — nothing was changed.`,
      'WORKTREE_AWAY',
    );
  }
}

export async function assertAgentWorktreeReady(job: JobRecord, worktree: string, opts: { headAway: HeadAway; takesUncommitted?: boolean }): Promise<void> {
  judgeAgentWorktree(job, worktree, await readAgentWorktree(job, worktree, opts.headAway), opts);
}
