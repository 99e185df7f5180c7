/** Update from Base: merges (or rebases onto) the base inside the agent's own worktree. */
import { usageError } from '../common/errors';
import { assertRebasableOnto, branchTip, commitAllWork, isAncestor, updateFromBase, type UpdateResult } from '../git';
import { BASE_UPDATES_KEPT, type JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { hasUncommittedWork, uncommittedWorkMessage, UNCOMMITTED_CHOICE_CODE } from './landingPrep';
import { landingTarget, remoteBranchOf } from './landingTarget';
import { updateBlocker } from './rules';
import { startEarly, settlingOnError } from '../common/early';
import { assertAgentWorktreeReady } from './agentWorktreeCheck';
import { refuseDroppedBase } from './droppedBaseCheck';

export interface UpdateRequest {
  rebase?: boolean;
  /** Uncommitted work in the worktree: commit it first (a merge into a dirty worktree could mix it into conflicts). */
  commitUncommitted?: boolean;
}

export interface UpdateReport extends UpdateResult {
  job: JobRecord;
  base: string;
}

export async function updateLocked(ctx: OperationContext, id: string, req: UpdateRequest): Promise<UpdateReport> {
  const job = await ctx.store.read(id);
  const blocked = updateBlocker(job);
  if (blocked) throw usageError(blocked);
  // Whether the worktree holds uncommitted work is read meanwhile (read-only; asked in its place).
  const uncommitted = startEarly(hasUncommittedWork(job));
  const { base, baseSha, ref } = await settlingOnError([uncommitted], async () => {
    return updateSource(job);
  });
  const dirty = await uncommitted;
  // A rebase would replay commits the base lost since the agent started as if they were the agent's (a merge keeps them apart: its landing refuses them).
  // A remote base too: the rebased branch no longer holds the start, so the pull request's own check could not see them.
  if (req.rebase) await refuseDroppedBase(job, base, 'rebasing onto it', { ref, how: 'rebase' });
  // Refused before anything is committed: the merge or rebase would otherwise conclude with conflict markers, or go to another branch.
  await assertAgentWorktreeReady(job, job.worktree!, { headAway: 'nothing' });
  if (dirty) {
    if (!req.commitUncommitted) {
      throw usageError(`Agent ${job.id} has uncommitted changes in its worktree; commit them first (--commit-uncommitted) — nothing was changed.`, UNCOMMITTED_CHOICE_CODE);
    }
    // The rebase's refusal of merge commits, before the work is committed: refused, nothing is changed.
    // Asked in updateFromBase's order: a branch already up to date with the base rebases nothing, and is not refused.
    if (req.rebase && !(await isAncestor(job.worktree!, baseSha, 'HEAD'))) await assertRebasableOnto(job.worktree!, baseSha, base);
    await commitAllWork(job.worktree!, uncommittedWorkMessage(job), job.branch!, (m) => ctx.log(m));
  }
  const noted = await noteBaseUpdate(ctx, job, baseSha);
  const result = await updateFromBase(job.worktree!, baseSha, base, { rebase: req.rebase ?? false });
  ctx.log(`agent ${id}: ${result.updated ? `${req.rebase ? 'rebased onto' : 'merged'} ${base}` : `already up to date with ${base}`}`);
  return { ...result, job: noted, base };
}

/**
 * Kept before git runs: the base's commits the update brings in are the agent's branch's from now on, and a landing
 * must refuse them as it refuses the start once the base drops them (a merge stopped on a conflict that the person
 * concludes, or an update killed part-way, brings them in as well).
 */
async function noteBaseUpdate(ctx: OperationContext, job: JobRecord, baseSha: string): Promise<JobRecord> {
  const kept = job.baseUpdates ?? [];
  if (baseSha === job.baseSha || kept[kept.length - 1] === baseSha) return job;
  return ctx.store.update(job.id, (j) => ({ ...j, baseUpdates: [...(j.baseUpdates ?? []).filter((s) => s !== baseSha), baseSha].slice(-BASE_UPDATES_KEPT) }));
}

/** What an update brings in: the base's local branch, else the remote's branch a base like `origin/develop` names (`ref`: where it is read). */
async function updateSource(job: JobRecord): Promise<{ base: string; baseSha: string; ref: string }> {
  let local: string;
  try {
    local = await landingTarget(job, undefined, 'update');
  } catch (err) {
    const remote = await remoteBranchOf(job);
    if (!remote) throw err;
    return { base: `${remote.remote}/${remote.branch}`, baseSha: remote.tip, ref: remote.ref };
  }
  const baseSha = await branchTip(job.repo, local);
  if (baseSha === null) throw usageError(`There is no branch '${local}' in ${job.repo}.`);
  return { base: local, baseSha, ref: `refs/heads/${local}` };
}
