/**
 * Automatic restarts (off by default): the leader retries a crashed agent in its worktree, until
 * `recoveryLimit` restarts in a row. Each under the agent's operation lock, left alone while a live
 * process holds it (looked at again once it is free: `heldLocks.ts`).
 */
import { existsSync } from 'node:fs';
import { describeError } from '../common/errors';
import type { OperationContext } from '../operations/context';
import { beginRetry } from '../operations/retry';
import { retryBlocker } from '../operations/rules';
import type { JobRecord } from '../store';
import type { HeldLocks } from './heldLocks';

/** Restarts what crashed among `jobs`; true when one was queued (the caller launches it). */
export async function autoRestart(ctx: OperationContext, jobs: readonly JobRecord[], heldLocks: HeldLocks): Promise<boolean> {
  let restarted = false;
  for (const job of jobs) {
    const s = job.settings;
    if (!s.autoRestart || job.cleanup !== null || job.recoveries >= s.recoveryLimit) continue;
    if (job.lifecycle.state !== 'failed' && job.lifecycle.state !== 'orphaned') continue;
    if (job.lifecycle.startedAt === null) continue; // never ran: a start failure, not a crash
    if (job.worktree === null || !existsSync(job.worktree)) continue;
    // What it left running being ended by its worker (a retry would be refused): the pass after that restarts it.
    if (retryBlocker(job) !== null) continue;
    const lock = await heldLocks.takeOrWatch(job.id);
    if (!lock) continue;
    try {
      await beginRetry(ctx, job.id, true);
      ctx.changed(job.id);
      restarted = true;
    } catch (err) {
      ctx.log(`automatic restart of ${job.id} failed: ${describeError(err)}`);
    } finally {
      await lock.release();
    }
  }
  return restarted;
}
