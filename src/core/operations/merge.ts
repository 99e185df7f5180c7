/** Merge into Base: lands the agent's branch on its base (or another branch) — merge, squash, rebase or fast-forward only. */
import * as path from 'node:path';
import { usageError } from '../common/errors';
import { landBranch, type LandStrategy } from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { agentBranchTip, prepareAgentWork, titleLine, type LandingChoices } from './landingPrep';
import { landingTarget } from './landingTarget';
import { recordLanding } from './recordLanding';
import { landBlocker } from './rules';

export interface MergeRequest extends LandingChoices {
  into?: string;
  strategy?: LandStrategy;
  message?: string;
}

export interface MergeReport {
  job: JobRecord;
  kind: 'merge' | 'squash' | 'rebase' | 'ff';
  into: string;
  from: string;
  commit: string;
}

/** Where temporary landing worktrees live: the store's own folder, so they are Paddock's to remove. */
export function landingScratch(ctx: OperationContext): string {
  return path.join(ctx.store.home, 'landing');
}

export function defaultMergeMessage(job: JobRecord, strategy: LandStrategy, into: string): string {
  const title = titleLine(job);
  if (strategy === 'squash') return `${title}\n\nSquashed from ${job.branch} (Paddock agent ${job.id}).\n`;
  return `Merge branch '${job.branch}' into ${into}\n\n${title} (Paddock agent ${job.id}).\n`;
}

/** Under the job's lock (the caller's). */
export async function mergeLocked(ctx: OperationContext, id: string, req: MergeRequest): Promise<MergeReport> {
  let job = await ctx.store.read(id);
  const blocked = landBlocker(job);
  if (blocked) throw usageError(blocked);
  const strategy = req.strategy ?? 'merge';
  const into = await landingTarget(job, req.into);
  job = await prepareAgentWork(ctx.store, job, req);
  const source = await agentBranchTip(job);
  const landed = await landBranch({
    repo: job.repo,
    target: into,
    source,
    sourceName: job.branch!,
    strategy,
    message: req.message ?? defaultMergeMessage(job, strategy, into),
    scratchRoot: landingScratch(ctx),
  });
  ctx.log(`agent ${id}: ${landed.kind} into ${into} (${landed.from.slice(0, 12)} → ${landed.commit.slice(0, 12)})`);
  job = await recordLanding(ctx.store, id, { kind: landed.kind, into, commit: landed.commit, url: null, branchHead: source });
  return { job, ...landed, into };
}
