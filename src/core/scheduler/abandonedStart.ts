/**
 * A start whose launching process died (SIGKILL, a closed terminal, a window
 * reloaded) between `starting` and its worker's claim: the record says
 * `starting`, names no launch and no execution, and nobody holds the job's
 * operation lock (the launcher holds it for the whole launch). Nothing ever ran,
 * so it is failed, undoing what the launch made of a first generation. The
 * leader does this on its passes; Stop does it too, so `paddock stop` settles
 * such an agent without a window, instead of waiting on a worker that never was.
 */
import { describeError, PaddockError } from '../common/errors';
import type { LockOwner } from '../coordinator/ownedLock';
import type { OperationContext } from '../operations/context';
import type { JobRecord } from '../store';
import type { HeldLocks } from './heldLocks';
import { undoLaunch } from './launch';

export const ABANDONED_START_REASON = 'the process launching it stopped before its worker started';

/** What the record says of an abandoned start; the caller proves the launcher gone by holding the job's operation lock. */
export function looksAbandonedStart(job: JobRecord): boolean {
  return job.lifecycle.state === 'starting' && job.launch === null && job.execution === null;
}

/** Fails an abandoned start (the caller holds the job's operation lock and read `job` under it). */
export async function recoverAbandonedStart(ctx: OperationContext, job: JobRecord): Promise<void> {
  // A first generation that never ran: its worktree and branch (even half-made, folder missing) are the launch's own.
  const ours = job.lifecycle.generation === 1 && job.lifecycle.startedAt === null && job.worktree !== null;
  await undoLaunch(ctx, job, ours, ABANDONED_START_REASON);
}

/** Not claimed by a worker yet: what a launcher suspended mid-launch leaves (launch set or not). */
export function looksUnclaimedStart(job: JobRecord): boolean {
  return job.lifecycle.state === 'starting' && job.execution === null;
}

export function suspendedLaunchReason(pid: number): string {
  return `the process launching it (pid ${pid}) was suspended (SIGSTOP) before its worker started; its slot was given back`;
}

/**
 * Fails a start whose launcher has stayed suspended (SIGSTOP) in the middle of it, so its capacity
 * slot goes to the queue (bug 132). Its lock is left held — the launcher is inside a half-done step
 * (git adding the worktree, a gated worker booting) it may finish once continued — and nothing is
 * undone here: only the record moves, and only while no worker has claimed it. A continued launcher
 * then finds it ended: its worker's claim is refused (an ended agent is never claimed) and it removes
 * nothing — the worktree was shown as the failed agent's meanwhile — leaving it to Clean Up (launch.ts).
 * True if it was failed.
 */
export async function failSuspendedLaunch(ctx: OperationContext, job: JobRecord, launcher: LockOwner): Promise<boolean> {
  const reason = suspendedLaunchReason(launcher.pid);
  try {
    await ctx.store.transition(job.id, 'failed', { detail: reason }, { expectFrom: ['starting'], expectUnclaimed: job.lifecycle.generation });
  } catch (err) {
    if (err instanceof PaddockError && err.code === 'UNEXPECTED_STATE') return false;
    throw err;
  }
  ctx.changed(job.id);
  ctx.log(`agent ${job.id} failed to start: ${reason}`);
  return true;
}

/**
 * The leader's pass: a job left in `starting` with no worker ever spawned (the process that claimed its
 * slot died mid-launch; its op lock is free then, a launch holds it) is failed. One not claimed yet
 * whose launcher stays suspended holding that lock gives its slot back.
 */
export async function recoverAbandonedStarts(ctx: OperationContext, jobs: readonly JobRecord[], heldLocks: HeldLocks): Promise<void> {
  for (const candidate of jobs) {
    if (!looksUnclaimedStart(candidate)) continue;
    const lock = await heldLocks.takeOrWatch(candidate.id);
    if (!lock) {
      // Its launcher is alive: judged again once it lets go, or once it has stayed suspended (bug 132).
      const launcher = await heldLocks.suspendedHolder(candidate.id);
      if (launcher) await failSuspendedLaunch(ctx, candidate, launcher).catch((err: unknown) => ctx.log(`could not give back the slot of ${candidate.id}: ${describeError(err)}`));
      continue;
    }
    if (!looksAbandonedStart(candidate)) {
      await lock.release();
      continue;
    }
    try {
      const job = await ctx.store.read(candidate.id);
      if (!looksAbandonedStart(job)) continue;
      await recoverAbandonedStart(ctx, job);
    } catch (err) {
      ctx.log(`could not recover the abandoned start of ${candidate.id}: ${describeError(err)}`);
    } finally {
      await lock.release();
    }
  }
}
