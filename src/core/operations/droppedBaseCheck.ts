/** The landings' and the rebase update's one refusal of commits the target lost since the agent started (git/droppedBase.ts). */
import { failure } from '../common/errors';
import { branchTip } from '../git';
import { droppedBase, droppedBaseProblem } from '../git/droppedBase';
import type { JobRecord } from '../store/schema';

/**
 * Throws the one sentence when landing `job`'s branch on `target` (`verb`: what that would do) would
 * bring back such commits; `ref` is where the target is read (its local branch unless said).
 */
export async function refuseDroppedBase(job: JobRecord, target: string, verb: string, ref = `refs/heads/${target}`): Promise<void> {
  if (job.branch === null) return;
  const source = await branchTip(job.repo, job.branch).catch(() => null);
  if (source === null) return;
  const dropped = await droppedBase(job.repo, job.baseSha, source, ref);
  if (dropped !== null) throw failure(droppedBaseProblem(job.id, target, dropped, verb), 'BASE_MOVED_BACK');
}
