/**
 * Before a landing or an update takes an agent's work from its worktree:
 * refused, in one sentence and with nothing changed, while a git operation
 * stopped half-way there or files are unmerged (what would be taken holds
 * conflict markers), or while its HEAD is away from the agent's branch with
 * work that branch lacks (the branch would be landed without it).
 */
import { failure } from '../common/errors';
import { assertNothingHalfDone, branchTip, describeHead, headAwayFrom } from '../git';
import type { JobRecord } from '../store/schema';

/**
 * What may be taken while HEAD is away from the agent's branch: `nothing` (an update works on
 * the branch itself), `branch-has-it` (a landing of the branch: HEAD's commits are in it and no
 * uncommitted work is to be committed), `anything` (apply takes what is on disk, whatever HEAD is).
 */
export type HeadAway = 'nothing' | 'branch-has-it' | 'anything';

export async function assertAgentWorktreeReady(job: JobRecord, worktree: string, opts: { headAway: HeadAway; takesUncommitted?: boolean }): Promise<void> {
  const who = `Agent ${job.id}'s worktree ${worktree}`;
  await assertNothingHalfDone(worktree, who);
  if (opts.headAway === 'anything' || !job.branch) return;
  const tip = await branchTip(job.repo, job.branch);
  if (tip === null) return; // refused by the operation itself, which says the branch is gone
  const away = await headAwayFrom(worktree, job.branch, tip);
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
