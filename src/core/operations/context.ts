/**
 * What the operations and the scheduler share: the store, the settings in
 * force (store policy included), the per-job operation locks, and the news of
 * a job changed by this process.
 */
import * as path from 'node:path';
import { describeError, failure, PaddockError } from '../common/errors';
import type { Closing } from '../common/closing';
import type { Limiter } from '../common/limiter';
import type { CleanupRunner } from '../coordinator/cleanupRunner';
import { OwnedLock, type HeldLock } from '../coordinator/ownedLock';
import type { CoordinatorSettings } from '../coordinator/settings';
import type { JobEntry, JobRecord, JobStore } from '../store';

export interface OperationContext {
  readonly store: JobStore;
  /** Base environment of workers and agents. */
  readonly env: NodeJS.ProcessEnv;
  readonly runner: CleanupRunner;
  /** Cleanups run by this process at the same time. */
  readonly cleanupLimiter: Limiter;
  settings(): CoordinatorSettings;
  log(message: string): void;
  /** A job was changed by this process. */
  changed(id: string): void;
  /** This process is closing (a window closing or reloading): a check it runs is ended, recorded, and waited for. */
  readonly closing: Closing;
  /**
   * An operation of this process let go of a job's lock (`releaseJobLock`): a queued agent's is this
   * process's to launch, since a one-shot coordinator's last look skips an agent whose lock is held.
   * Awaited: a one-shot coordinator is disposed as its command returns, so its look at the job ends first.
   */
  lockLetGo?(id: string): void | Promise<void>;
}

/** How long a person's operation waits for another process's: on the same job, a keep of the same group, a send of the same review. */
export const OPERATION_WAIT_MS = 120_000;

/** Where the store's operation locks live (one folder: a job's, a group's keep, a review's send, a Clean Up's marker). */
export function operationLocksDir(store: JobStore): string {
  return path.join(store.home, 'coordinator', 'ops');
}

/** The per-job operation lock: one operation (start, stop, retry, cleanup, restore, launch) on a job at a time, store-wide. */
export function jobLock(store: JobStore, id: string): OwnedLock {
  store.jobDir(id); // validates the id before it becomes part of a path
  return new OwnedLock(path.join(operationLocksDir(store), `${id}.lock`), `operation on ${id}`);
}

/** The job's operation lock, waited for as an operation waits (a person's: a suspended holder is named at once). */
export function acquireJobLock(store: JobStore, id: string): Promise<HeldLock> {
  return jobLock(store, id).acquire(OPERATION_WAIT_MS, { sayWhenSuspended: true });
}

/** The job's operation lock for `what` (a verb: "forget"), or one sentence saying why it could not be had. Needs no record. */
export function heldJobLock(store: JobStore, id: string, what: string): Promise<HeldLock> {
  return heldOperationLock(jobLock(store, id), `Could not ${what} agent ${id}`);
}

/**
 * `lock`, waited for as a person's operation waits (a suspended holder is named at once), or one
 * sentence: `refusal`, then why it could not be had — `busy` in place of the lock's own words when
 * its holder was waited for in vain (a person is told what is going on, not a lock file's name).
 */
export function heldOperationLock(lock: OwnedLock, refusal: string, opts: { busy?: string; waitMs?: number } = {}): Promise<HeldLock> {
  return lock.acquire(opts.waitMs ?? OPERATION_WAIT_MS, { sayWhenSuspended: true }).catch((err: unknown) => {
    // The code goes on: a stop tells a lock nobody can take (LOCK_UNWRITABLE) from one held.
    const code = err instanceof PaddockError ? err.code : undefined;
    throw failure(`${refusal}: ${opts.busy !== undefined && code === 'LOCK_TIMED_OUT' ? opts.busy : describeError(err)}`, code);
  });
}

/**
 * Lets go of a job's operation lock an operation held. Every operation, refused or not, ends here: a
 * one-shot coordinator (the CLI's) that looked at the queue while the lock was held left a queued agent
 * to its holder, so the holder pumps (`lockLetGo`), or the agent stayed queued with a slot free (bug 193).
 */
export async function releaseJobLock(ctx: OperationContext, id: string, held: HeldLock): Promise<void> {
  try {
    await held.release();
  } finally {
    await ctx.lockLetGo?.(id);
  }
}

/** Runs `fn` under the job's operation lock, waiting for another process's operation on it. */
export async function withJobLock<T>(ctx: OperationContext, id: string, what: string, fn: () => Promise<T>): Promise<T> {
  // Bad or unknown ids fail before any waiting; as stored: a reader's record of a gone worker waits for the
  // record lock (20 s on a full disk, before a stop could find the store unwritable: bug 141).
  await ctx.store.readStored(id);
  const held = await heldJobLock(ctx.store, id, what);
  try {
    return await fn();
  } finally {
    await releaseJobLock(ctx, id, held);
  }
}

export function okJobs(entries: readonly JobEntry[]): JobRecord[] {
  const out: JobRecord[] = [];
  for (const e of entries) if (e.ok) out.push(e.job);
  return out;
}
