/** The landings' and the rebase update's one refusal of commits the target lost since the agent started (git/droppedBase.ts). */
import { failure } from '../common/errors';
import { branchTip, isAncestor } from '../git';
import { droppedBase, droppedBaseProblem, type DroppedLanding } from '../git/droppedBase';
import type { JobRecord } from '../store/schema';

export interface DroppedBaseCheck {
  /** How the landing puts the branch on the target (git/droppedBase.ts). */
  how: DroppedLanding;
  /** Where the target is read: its local branch unless said. */
  ref?: string;
  /** What the way out rebases onto, when `target` is no name for git in the agent's worktree. */
  onto?: string;
  /** A ref whose commits do not land (a pull request proposes only what the remote's base lacks): a point it holds is not refused. */
  unlessIn?: string;
  /** The target's past positions, when not `ref`'s own reflog (a detached HEAD's: git/detachedHeadReflog.ts). */
  positions?: string[];
  /** The tip that lands, when known: else the agent's branch's tip as it is now. */
  source?: string;
}

/**
 * Throws the one sentence when landing `job`'s branch on `target` (`verb`: what that would do) would
 * bring back such commits: the one the agent started from, or one `paddock update` brought in since
 * (the base may drop it after the update as well as before). Returns the tip it judged (null: none):
 * a landing whose tip then moves (the agent's work committed, a stopped agent's last commit) asks again
 * of the tip it lands, as a merge's judgement depends on the whole branch (bug 215).
 */
export async function refuseDroppedBase(job: JobRecord, target: string, verb: string, check: DroppedBaseCheck): Promise<string | null> {
  if (job.branch === null) return null;
  const source = check.source ?? (await branchTip(job.repo, job.branch).catch(() => null));
  if (source === null) return null;
  const ref = check.ref ?? `refs/heads/${target}`;
  // The start first, then the updates newest first: the sentence names the first that would come back. One at a
  // time (each is one git process while the target still has it): a record keeps up to 50 updates.
  const points = [...new Set([job.baseSha, ...[...(job.baseUpdates ?? [])].reverse()])];
  for (const point of points) {
    const dropped = await droppedBase(job.repo, point, source, ref, check.how, check.positions);
    if (dropped === null) continue;
    if (check.unlessIn !== undefined && (await isAncestor(job.repo, point!, check.unlessIn).catch(() => false))) continue;
    const updated = point !== job.baseSha;
    throw failure(droppedBaseProblem(job.id, target, dropped, verb, { updated, onto: check.onto }), 'BASE_MOVED_BACK');
  }
  return source;
}
