/** Apply to Workspace: the agent's whole diff against the base — commits and uncommitted work — as uncommitted changes in the main worktree. */
import { usageError } from '../common/errors';
import { applyCommitToWorktree, worktreeStateCommit } from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { agentBranchTip, linkedWorktree, prepareAgentWork, type LandingChoices } from './landingPrep';
import { recordLanding } from './recordLanding';
import { landBlocker } from './rules';

export interface ApplyReport {
  job: JobRecord;
  into: string;
  files: string[];
}

export async function applyLocked(ctx: OperationContext, id: string, choices: Pick<LandingChoices, 'running'>): Promise<ApplyReport> {
  let job = await ctx.store.read(id);
  const blocked = landBlocker(job);
  if (blocked) throw usageError(blocked);
  job = await prepareAgentWork(ctx.store, job, choices, { includesUncommitted: true });
  const worktree = await linkedWorktree(job);
  const source = worktree !== null ? await worktreeStateCommit(worktree, `Work of Paddock agent ${job.id} as it is on disk`) : await agentBranchTip(job);
  const files = await applyCommitToWorktree(job.repo, source, `Agent ${job.id}'s work`);
  ctx.log(`agent ${id}: applied ${files.length} file(s) to ${job.repo}`);
  job = await recordLanding(ctx.store, id, { kind: 'apply', into: job.repo, commit: null, url: null, branchHead: null });
  return { job, into: job.repo, files };
}
