/**
 * Restore: an agent's worktree re-created from its evidence alone (snapshot
 * ref, archive, submodules' git dirs, inventory). The rule of when it can run
 * lives here and is used by the CLI, the command and the tree alike.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { failure, PaddockError, usageError } from '../common/errors';
import { branchTip, restoreWorktree, type RestoreResult } from '../git';
import { branchDeletedByCleanup, restoreBlocker } from '../operations/rules';
import type { JobRecord, JobStore } from '../store';

/** The original worktree path when it is free again; otherwise the caller must name a folder. */
export function defaultRestoreTarget(job: JobRecord): string | null {
  return job.worktree !== null && !existsSync(job.worktree) ? job.worktree : null;
}

export async function restoreAgent(store: JobStore, id: string, to: string | undefined): Promise<RestoreResult> {
  const job = await store.read(id);
  const blocker = restoreBlocker(job);
  if (blocker) throw usageError(blocker);
  const target = to !== undefined ? path.resolve(to) : defaultRestoreTarget(job);
  if (target === null) {
    throw usageError(`Agent ${id}'s worktree ${job.worktree ?? ''} still exists; pass --to DIR to restore into another folder.`);
  }
  const evidenceDir = path.dirname(store.patchPath(id));
  let result: RestoreResult;
  try {
    result = await restoreWorktree({ repo: job.repo, snapshotRef: job.evidence!.snapshotRef!, evidenceDir, target, branch: job.branch });
  } catch (err) {
    if (err instanceof PaddockError) throw err;
    throw failure(`Could not restore agent ${id}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Landing is refused while the record says the cleanup deleted the branch ("restore it first"): say it is back.
  const branch = job.branch;
  if (branch && branchDeletedByCleanup(job) && (await branchTip(job.repo, branch)) !== null) {
    await store.update(id, (j) => (j.cleanup ? { ...j, cleanup: { ...j.cleanup, branchOutcome: `branch ${branch} re-created by a restore` } } : j));
  }
  await store
    .appendTimeline(id, { generation: job.lifecycle.generation, type: 'restored', message: `worktree restored to ${result.path} (${result.branchNote})`.slice(0, 2000) })
    .catch(() => undefined);
  return result;
}
