/**
 * The leader's part in cleanups: an incomplete cleanup is tried again on its persisted backoff
 * (one attempt at a time per repository, the most overdue first), an interrupted one is resumed,
 * and a timer is armed for the earliest due retry so a backoff ends on time with nothing else
 * happening. A job whose operation lock someone else holds is left to them (`heldLocks.ts`): the
 * lock's release brings the next pass, never a timer or an attempt that would end at once.
 */
import { describeError } from '../common/errors';
import { Disposable, disposableTimeout, IDisposable, MutableDisposable } from '../common/lifecycle';
import { backoffDelayMs, DueTimes } from '../coordinator/backoff';
import { observeFingerprint } from '../coordinator/cleanupRunner';
import type { OperationContext } from '../operations/context';
import { forgetEnvIfCleaned } from '../operations/operations';
import { cleanupWaitsForPerson } from '../operations/rules';
import type { JobRecord } from '../store';
import type { HeldLocks } from './heldLocks';

/** The longest a due-time timer is armed for (a clock jump is re-judged at the next pass). */
const MAX_TIMER_MS = 60_000;

export interface CleanupRetriesOptions {
  heldLocks: HeldLocks;
  track<T>(promise: Promise<T>): Promise<T>;
  random?: () => number;
  /** How far ahead a persisted retry time is believed (SchedulerOptions.retryTrustMs). */
  retryTrustMs?: number;
  /** An attempt ended (it may have changed the store, and another of its repository may be due). */
  onAttemptEnded(): void;
  /** The earliest retry is due now: a pass should run. */
  onDue(): void;
  /** The soonest a due-time timer fires (the scheduler's coalescing of passes). */
  soonestMs: number;
}

export class CleanupRetries extends Disposable {
  private readonly dueTimes: DueTimes;
  /** Automatic cleanup attempts in flight, by repository: one at a time per repository. */
  private readonly repoAttempts = new Map<string, Promise<void>>();
  /** The next due cleanup retry (leader only). */
  private readonly nextDue = this._register(new MutableDisposable<IDisposable>());

  constructor(
    private readonly ctx: OperationContext,
    private readonly opts: CleanupRetriesOptions,
  ) {
    super();
    this.dueTimes = new DueTimes(opts.retryTrustMs);
  }

  /** No longer leading: no retry is due here. */
  clearDueTimer(): void {
    this.nextDue.clear();
  }

  /**
   * A persisted attempt time beyond the cap (the clock jumped back after it was written) is clamped
   * when first seen — in memory (DueTimes), and on disk here, so a reload does not start the cap
   * over: the attempt comes at most 1.1× the cap after the first sighting, reloads or not.
   */
  async persistClampedDueTimes(jobs: JobRecord[]): Promise<void> {
    const now = Date.now();
    for (const job of jobs) {
      const c = job.cleanup;
      if (!c || c.phase !== 'incomplete' || c.nextAttemptAt === null || !(Date.parse(c.nextAttemptAt) > now + this.dueTimes.trustMs)) continue;
      const persisted = c.nextAttemptAt;
      const clamped = new Date(this.dueTimes.due(job.id, persisted, now)).toISOString();
      const lock = await this.opts.heldLocks.takeOrWatch(job.id);
      if (!lock) continue; // someone is working on it: tried again once they let go
      try {
        await this.ctx.store.update(job.id, (j) =>
          j.cleanup?.nextAttemptAt === persisted ? { ...j, cleanup: { ...j.cleanup, nextAttemptAt: clamped } } : j,
        );
      } finally {
        await lock.release();
      }
    }
  }

  /** Picks, per repository, the most overdue incomplete cleanup and tries it again in the background. */
  schedule(jobs: JobRecord[]): void {
    const now = Date.now();
    const due = (job: JobRecord) => this.dueTimes.due(job.id, job.cleanup!.nextAttemptAt, now);
    const byRepo = new Map<string, JobRecord>();
    for (const job of jobs) {
      const c = job.cleanup;
      if (!c || c.phase === 'complete' || cleanupWaitsForPerson(c)) continue;
      if (c.phase === 'incomplete' && due(job) > now) continue;
      // Someone is working on it: a pass comes back to it once they let go. Picking it again would
      // end that attempt at once and ask for the next pass: a loop for as long as they hold it.
      if (this.opts.heldLocks.isWatching(job.id)) continue;
      const best = byRepo.get(job.repo);
      if (!best || due(best) > due(job)) byRepo.set(job.repo, job);
    }
    for (const [repo, job] of byRepo) {
      if (this.repoAttempts.has(repo)) continue;
      const attempt = this.attempt(job.id).finally(() => {
        this.repoAttempts.delete(repo);
        this.opts.onAttemptEnded();
      });
      this.repoAttempts.set(repo, attempt);
      void this.opts.track(attempt);
    }
  }

  private async attempt(id: string): Promise<void> {
    const { store } = this.ctx;
    const lock = await this.opts.heldLocks.takeOrWatch(id);
    if (!lock) return; // someone is working on it right now: tried again once they let go
    try {
      const job = await store.read(id);
      const c = job.cleanup;
      if (!c || c.phase === 'complete' || cleanupWaitsForPerson(c)) return;
      const now = Date.now();
      if (c.phase === 'incomplete') {
        if (this.dueTimes.due(id, c.nextAttemptAt, now) > now) return;
        if (c.fingerprint !== null && (await observeFingerprint(job)) === c.fingerprint) {
          // Nothing it looked at changed: the same attempt would fail the same way.
          await store.update(id, (j) => ({
            ...j,
            cleanup: { ...j.cleanup!, nextAttemptAt: new Date(now + backoffDelayMs(c.failures, this.opts.random)).toISOString() },
          }));
          return;
        }
      } else {
        this.ctx.log(`resuming the cleanup of ${id}, interrupted at ${c.phase}`);
      }
      const outcome = await this.ctx.cleanupLimiter.run(() => this.ctx.runner.run(id, { manual: false }));
      forgetEnvIfCleaned(this.ctx, outcome.job);
      this.ctx.changed(id);
    } catch (err) {
      this.ctx.log(`automatic cleanup of ${id} failed: ${describeError(err)}`);
    } finally {
      await lock.release();
    }
  }

  /** A timer for the earliest due cleanup retry, so a backoff ends on time with nothing else happening. */
  armNextDue(jobs: JobRecord[]): void {
    const now = Date.now();
    let earliest = Infinity;
    for (const job of jobs) {
      const c = job.cleanup;
      if (!c || c.phase !== 'incomplete' || cleanupWaitsForPerson(c) || this.repoAttempts.has(job.repo)) continue;
      // Due while someone holds its lock: its lock's release brings the next pass, not a timer.
      if (this.opts.heldLocks.isWatching(job.id)) continue;
      earliest = Math.min(earliest, this.dueTimes.due(job.id, c.nextAttemptAt, now));
    }
    if (earliest === Infinity) {
      this.nextDue.clear();
      return;
    }
    const delay = Math.min(Math.max(earliest - now, this.opts.soonestMs), MAX_TIMER_MS);
    this.nextDue.value = disposableTimeout(() => {
      this.nextDue.clear();
      this.opts.onDue();
    }, delay);
  }
}
