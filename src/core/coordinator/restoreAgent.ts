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
import { configuredPortRange, type PortRange, type WorktreeSettings } from '../repoConfig/worktreeConfig';
import { assertOwnClaims } from '../operations/claimGuard';
import { reclaimPorts } from './ports';

/** The original worktree path when it is free again; otherwise the caller must name a folder. */
export function defaultRestoreTarget(job: JobRecord): string | null {
  return job.worktree !== null && !existsSync(job.worktree) ? job.worktree : null;
}

/** `worktreeSettings`: the person's `paddock.worktree.*`, whose port range a revived agent's ports come from again. */
export async function restoreAgent(store: JobStore, id: string, to: string | undefined, worktreeSettings?: WorktreeSettings, log?: (message: string) => void): Promise<RestoreResult> {
  const job = await store.read(id);
  const blocker = restoreBlocker(job);
  if (blocker) throw usageError(blocker);
  const target = to !== undefined ? path.resolve(to) : defaultRestoreTarget(job);
  if (target === null) {
    throw usageError(`Agent ${id}'s worktree ${job.worktree ?? ''} still exists; pass --to DIR to restore into another folder.`);
  }
  // Its branch is re-created, and the target filled: neither may be another agent's.
  await assertOwnClaims(store, job, 'restore', target);
  const evidenceDir = path.dirname(store.patchPath(id));
  let result: RestoreResult;
  try {
    result = await restoreWorktree({ repo: job.repo, snapshotRef: job.evidence!.snapshotRef!, evidenceDir, target, branch: job.branch, branchDeletedByCleanup: branchDeletedByCleanup(job), log });
  } catch (err) {
    if (err instanceof PaddockError) throw err;
    throw failure(`Could not restore agent ${id}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (await reviveAtItsOwnPath(store, job, result.path)) {
    // Its cleanup had released its ports: another agent may hold them now.
    const ports = await reclaimPorts(store, id, portRangeOf(worktreeSettings)).catch(() => null);
    const before = job.setup?.ports ?? [];
    if (ports !== null && ports.join() !== before.join()) {
      const now = ports.length > 0 ? `it now has ports ${ports.join(', ')}` : 'no free block was left, it has none now';
      await store
        .appendTimeline(id, { generation: job.lifecycle.generation, type: 'restored', message: `ports ${before.join(', ')} were taken by another agent since its cleanup; ${now}` })
        .catch(() => undefined);
    }
    await store
      .appendTimeline(id, { generation: job.lifecycle.generation, type: 'restored', message: `worktree restored to ${result.path} (${result.branchNote}); the agent is no longer cleaned up` })
      .catch(() => undefined);
    return result;
  }
  // Landing is refused while the record says the cleanup deleted the branch ("restore it first"): say it is back.
  const branch = job.branch;
  if (branch && branchDeletedByCleanup(job) && (await branchTip(job.repo, branch)) !== null) {
    await store.update(id, (j) => (j.cleanup ? { ...j, cleanup: { ...j.cleanup, branchOutcome: `branch ${branch} re-created by a restore` } } : j));
  }
  await store
    .appendTimeline(id, { generation: job.lifecycle.generation, type: 'restored', message: `worktree restored to ${result.path} (${result.branchNote})` })
    .catch(() => undefined);
  return result;
}

function portRangeOf(settings: WorktreeSettings | undefined): PortRange | null {
  try {
    return configuredPortRange(settings ?? {});
  } catch {
    return null; // a setting that is no range: said where ports are first asked for (a start)
  }
}

/**
 * Back at the record's own worktree path, the agent has its worktree again: its completed cleanup is
 * dropped, so every rule (retry, check, update, open, land, keep, clean up) sees a live worktree. The
 * evidence stays, so it can still be restored from; a later Clean Up captures the worktree again (the
 * restored work and whatever changed since) before removing it. A restore elsewhere (`--to`) is a copy
 * to look at: the record keeps saying where the agent's own worktree was.
 */
async function reviveAtItsOwnPath(store: JobStore, job: JobRecord, restoredTo: string): Promise<boolean> {
  if (job.worktree === null || path.resolve(job.worktree) !== path.resolve(restoredTo)) return false;
  let revived = false;
  await store.update(job.id, (j) => {
    // Only a finished cleanup: one still under way owns the record's cleanup state and resumes from it.
    if (j.cleanup?.phase !== 'complete' || j.worktree !== job.worktree) return j;
    revived = true;
    return { ...j, cleanup: null };
  });
  return revived;
}
