/**
 * The scheduler: launches queued agents within capacity (and undoes a failed
 * launch), retries incomplete cleanups on their persisted backoff
 * (`cleanupRetries.ts`), recovers starts abandoned by a dead launcher, restarts
 * crashed agents when asked to, and runs the check of attempts that ended
 * (`automaticChecks.ts`). It acts only in the process that holds the leader lease, and only when
 * something happened: a store change (the store watcher), an operation of this
 * process, the due time of a cleanup retry, or the release of the operation
 * lock of a job a pass had to leave alone (looked at each second while held: a
 * holder that dies writes nothing to the store; `heldLocks.ts`) — never on a fixed tick otherwise. A
 * follower tries to take the lease now and then (`leaseRetryMs`), which
 * succeeds the moment the leader is gone. Every process reports capacity news.
 */
import { describeError } from '../common/errors';
import { Emitter, Event } from '../common/event';
import { Disposable, disposableTimeout, MutableDisposable, IDisposable } from '../common/lifecycle';
import { CapacityBlocker, capacityOf, CapacityState, queueOrder } from '../coordinator/capacity';
import { OwnedLock } from '../coordinator/ownedLock';
import { OperationContext, okJobs } from '../operations/context';
import type { JobEntry, JobRecord, JobWatcher } from '../store';
import { AutomaticChecks } from './automaticChecks';
import { endAbandonedLeftovers } from './abandonedLeftovers';
import { CleanupRetries } from './cleanupRetries';
import { HeldLocks } from './heldLocks';
import { recoverAbandonedStarts } from './abandonedStart';
import { launchJob, WorkerRuntime } from './launch';
import { StoreLeftovers } from './storeLeftovers';
import { autoRestart } from './autoRestart';
import { IdleRounds, releaseAndLookAgain } from './oneShot';
import type { Leadership } from './leadership';
import * as path from 'node:path';

export interface CapacityBlockEvent {
  /** Agents that hold a slot only because their cleanup is incomplete (empty: no longer blocked). */
  blockedBy: CapacityBlocker[];
  capacity: CapacityState;
}

export interface SchedulerOptions {
  runtime: WorkerRuntime;
  leadership: Leadership;
  /** Store changes by anyone; without it the scheduler acts only on this process's operations. */
  watcher?: JobWatcher;
  /** How often a follower tries to take the lease. */
  leaseRetryMs: number;
  /**
   * The CLI's coordinator (no loop, no watcher): it leads only while it works, each pump and pass ending
   * with the lease given up and one more look at the queue (`oneShot.ts`); it never retries the lease.
   */
  oneShot?: boolean;
  /** Keeps background work visible to `whenIdle`. */
  track<T>(promise: Promise<T>): Promise<T>;
  random?: () => number;
  /** The adapter's word that a repository is trusted (its `.paddock.json` check may run). */
  repoTrusted?: (repo: string) => boolean;
  /**
   * How far ahead a persisted cleanup retry time is believed (default MAX_DELAY_MS, 1.1× the
   * backoff cap); a later one is clamped once, as after a clock jump. Tests shorten it to prove
   * the clamp without waiting out the real cap.
   */
  retryTrustMs?: number;
}

const CAPACITY_WAIT_MS = 30_000;
/** A burst of store changes within this window makes one pass. */
const PASS_COALESCE_MS = 50;

export class Scheduler extends Disposable {
  private readonly _onDidChangeCapacityBlock = this._register(new Emitter<CapacityBlockEvent>());
  readonly onDidChangeCapacityBlock: Event<CapacityBlockEvent> = this._onDidChangeCapacityBlock.event;

  /** The pass asked for by a burst of store changes. */
  private readonly passSoon = this._register(new MutableDisposable<IDisposable>());
  /** The next attempt to take the lease (follower only). */
  private readonly leaseRetry = this._register(new MutableDisposable<IDisposable>());
  /** Jobs a pass left alone for a lock a live process held, passed again once it is free (`heldLocks.ts`). */
  private readonly heldLocks: HeldLocks;

  private readonly capacityLock: OwnedLock;
  /** Incomplete and interrupted cleanups, taken up again in the background (`cleanupRetries.ts`). */
  private readonly cleanupRetries: CleanupRetries;
  private passing: Promise<void> | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  /** A one-shot coordinator's operation left the queue to another coordinator since this process last pumped (`pumpForOperation`). */
  queueLeft = false;
  private lastBlockKey = '';
  private cachedJobs: JobRecord[] | undefined;
  /** The listing `cachedJobs` came from: capacity counts unreadable records whose worker still runs. */
  private cachedEntries: readonly JobEntry[] = [];
  private readonly leftovers: StoreLeftovers;
  private dirty = true;
  private readonly checks: AutomaticChecks;

  constructor(private readonly ctx: OperationContext, private readonly opts: SchedulerOptions) {
    super();
    this.heldLocks = this._register(
      new HeldLocks(ctx.store, {
        active: () => this.isLeader,
        onFree: () => {
          this.markDirty();
          this.schedulePass();
        },
        track: opts.track,
      }),
    );
    const takeOrWatch = (id: string) => this.heldLocks.takeOrWatch(id);
    this.cleanupRetries = this._register(
      new CleanupRetries(ctx, {
        heldLocks: this.heldLocks,
        track: opts.track,
        random: opts.random,
        retryTrustMs: opts.retryTrustMs,
        onAttemptEnded: () => {
          this.markDirty();
          this.schedulePass();
        },
        onDue: () => void opts.track(this.passOnce(false)),
        soonestMs: PASS_COALESCE_MS,
      }),
    );
    this.leftovers = new StoreLeftovers(ctx, takeOrWatch);
    this.checks = new AutomaticChecks(ctx, { track: opts.track, repoTrusted: opts.repoTrusted, takeOrWatch });
    this.capacityLock = new OwnedLock(path.join(ctx.store.home, 'coordinator', 'capacity.lock'), 'capacity');
    if (opts.watcher) {
      this._register(
        opts.watcher.onDidChangeJob(() => {
          this.dirty = true;
          this.schedulePass();
        }),
      );
    }
    this._register(opts.leadership.onDidChange((leads) => (leads ? this.leaseRetry.clear() : this.cleanupRetries.clearDueTimer())));
  }

  /** `AutomaticChecks.foundNothingToRun`: an attempt's check this leader will not look at again. */
  checkFoundNothingToRun(job: JobRecord): boolean {
    return this.checks.foundNothingToRun(job);
  }

  /** `AutomaticChecks.forgetChangedConfig`: what an allow or an edit since made worth a look again. */
  forgetChangedCheckConfig(jobs: readonly JobRecord[]): Promise<void> {
    return this.checks.forgetChangedConfig(jobs);
  }

  get isLeader(): boolean {
    return this.opts.leadership.isLeader;
  }

  /** This process changed a job: the next pass re-reads the store. */
  markDirty(): void {
    this.dirty = true;
  }

  /**
   * One pass now: leadership (taken if free), then as leader the queue, cleanup retries and restarts; capacity news for everyone.
   * `listing`: the store as the caller has just read it (Refresh reads it once for the pass and the window's model).
   */
  pass(listing?: readonly JobEntry[]): Promise<void> {
    if (this._store.isDisposed) return Promise.resolve();
    this.passing ??= this.passOnce(true, listing).finally(() => {
      this.passing = undefined;
    });
    return this.passing;
  }

  /**
   * Launches queued jobs while capacity allows, if this process leads (taking a free lease first):
   * their slots are claimed one at a time, in queue order, and the launches (each a worktree's
   * checkout, a worker's boot and its agent's start, ~0.2 s in a 5,000-file repository) run side by
   * side. Resolves once every launch it began has ended: a `paddock start` that leads exits only then.
   */
  pump(): Promise<void> {
    if (this._store.isDisposed) return Promise.resolve();
    this.queueLeft = false; // this pump's rounds and last look see the whole queue
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = this.pumpRounds().finally(() => {
      this.pumping = undefined;
    });
    return this.pumping;
  }

  /** Launch rounds until nothing more can launch; a one-shot coordinator ends each with `endOneShot`, which may ask for another. */
  private async pumpRounds(): Promise<void> {
    const idle = new IdleRounds();
    for (;;) {
      const round = await this.launchRound();
      if (!this.opts.oneShot || round === 'not led' || this._store.isDisposed) return;
      // A pump asked for while this one let go (a pass's look that found an agent) is this one's to run.
      // After a round that failed (the capacity lock not had in time), not again at once: it would fail the same.
      if ((!(await this.endOneShot()) && !this.pumpAgain) || round === 'failed') return;
      // Rounds that claim nothing: a lock the look finds free that the claim cannot take yet (bug 221).
      if (!(await idle.goOn(round === 'idle'))) return;
    }
  }

  /**
   * The one step that ends every pump and pass of a one-shot coordinator: the lease given up, the queue
   * looked at once more (`oneShot.ts`, bug 170). True when it must pump again.
   */
  private async endOneShot(): Promise<boolean> {
    if (this._store.isDisposed) return false;
    try {
      return await releaseAndLookAgain(this.ctx, this.opts.leadership);
    } catch (err) {
      this.ctx.log(`looking at the queue once more failed: ${describeError(err)}`);
      return false;
    }
  }

  /** Claims and launches while capacity allows and this process leads; whether it led (idle: claiming nothing), and whether its round failed. */
  private async launchRound(): Promise<'not led' | 'idle' | 'led' | 'failed'> {
    const launching = new Set<Promise<void>>();
    let led: 'not led' | 'idle' | 'led' | 'failed' = 'not led';
    let claimedAny = false;
    try {
      for (;;) {
        this.pumpAgain = false;
        // Asked of the lease itself, not remembered: a leader suspended for a while had it taken over.
        if (!(await this.opts.leadership.refresh())) break;
        led = 'led';
        let claimed = false;
        for (let next = await this.claimNext(); next !== undefined && !this._store.isDisposed; next = await this.claimNext()) {
          const launch = next.launch.finally(() => launching.delete(launch));
          launching.add(launch);
          claimed = true;
          claimedAny = true;
        }
        if (this._store.isDisposed || (launching.size === 0 && !claimed && !this.pumpAgain)) break;
        // Each time a launch ends, the queue is looked at again: what another process queued meanwhile
        // (a `paddock start` that does not lead leaves its agent to this one), or a slot a failed launch freed.
        if (launching.size > 0) await Promise.race(launching);
      }
    } catch (err) {
      this.ctx.log(`launching queued agents failed: ${describeError(err)}`);
      if (led === 'led') led = 'failed';
    } finally {
      await Promise.all(launching);
    }
    return led === 'led' && !claimedAny ? 'idle' : led;
  }

  schedulePump(): void {
    // A one-shot coordinator gave the lease up after its last round: a slot its own operation freed
    // (a Stop) must still launch what waits, taking the lease again if it is free (bug 170).
    if (this.isLeader || this.opts.oneShot) void this.opts.track(this.pump());
  }

  /**
   * The pump this process's own operation asks for as it ends (a slot it freed, a queued agent's lock
   * it let go): the one rule for all of them. A window's runs in the background. A one-shot
   * coordinator's (the CLI's) launches nothing: it notes `queueLeft`, and the CLI, once the command's
   * coordinator is disposed, starts the detached background coordinator when an agent waits with no
   * leader, as `start` does. A launch awaited here made `paddock stop` wait for other agents' whole
   * launches, a Ctrl-C of it killing one mid-launch, and an interrupted start launch the attempt it
   * was about to stop (bug 220); in the background, it found the coordinator disposed (bug 193).
   */
  pumpForOperation(): Promise<void> {
    if (this.opts.oneShot) this.queueLeft = true;
    else this.schedulePump();
    return Promise.resolve();
  }

  /** Coalesces bursts of store changes into one pass (a queued job appeared, a slot freed, an agent ended). */
  private schedulePass(): void {
    if (this.passSoon.value || this._store.isDisposed) return;
    this.passSoon.value = disposableTimeout(() => {
      this.passSoon.clear();
      void this.opts.track(this.passOnce(false));
    }, PASS_COALESCE_MS);
  }

  private async passOnce(tryLease: boolean, listing?: readonly JobEntry[]): Promise<void> {
    try {
      if (tryLease || this.isLeader) await this.opts.leadership.refresh();
      if (this._store.isDisposed) return;
      let jobs = await this.jobsForPass(listing);
      if (this.isLeader) {
        if (jobs.some((j) => j.lifecycle.state === 'queued')) {
          await this.pump();
          // A one-shot coordinator gave the lease up as its pump ended: the rest of the pass is a leader's (given up again below).
          if (this.opts.oneShot && !(await this.opts.leadership.refresh())) return this.reportCapacity();
          jobs = await this.jobsForPass();
        }
        await this.cleanupRetries.persistClampedDueTimes(jobs);
        this.cleanupRetries.schedule(jobs);
        await recoverAbandonedStarts(this.ctx, jobs, this.heldLocks);
        await this.leftovers.sweep();
        await endAbandonedLeftovers(this.ctx, jobs, (id) => this.heldLocks.takeOrWatch(id));
        // A restart queued something: launched in this pass's wake (a one-shot's by its last look: a pump beside this work gave the lease up mid-pass, bug 193).
        if ((await autoRestart(this.ctx, jobs, this.heldLocks)) && !this.opts.oneShot) this.schedulePump();
        await this.checks.schedule(jobs);
        this.cleanupRetries.armNextDue(jobs);
      } else {
        this.armLeaseRetry();
      }
      this.reportCapacity();
    } catch (err) {
      this.ctx.log(`coordinator pass failed: ${describeError(err)}`);
    } finally {
      // Kept past the pass, the lease would leave an agent another command queued to this process (bug 170).
      if (this.opts.oneShot && (await this.endOneShot())) await this.pump();
    }
  }

  /** Listing reads and validates every record: only when something changed since the last pass. */
  private async jobsForPass(listing?: readonly JobEntry[]): Promise<JobRecord[]> {
    if (!listing && !this.dirty && this.cachedJobs !== undefined) return this.cachedJobs;
    this.dirty = false;
    const entries = listing ?? (await this.ctx.store.list());
    this.cachedEntries = entries;
    this.cachedJobs = okJobs(entries);
    this.leftovers.noteListing(entries);
    return this.cachedJobs;
  }

  private armLeaseRetry(): void {
    // A one-shot coordinator leads only while it works: with its leaseRetryMs of 0, a retry would follow
    // each failed one at once, again and again, for as long as another process led.
    if (this.opts.oneShot || this.leaseRetry.value || this._store.isDisposed) return;
    this.leaseRetry.value = disposableTimeout(() => {
      this.leaseRetry.clear();
      void this.opts.track(this.pass());
    }, this.opts.leaseRetryMs);
  }

  private reportCapacity(): void {
    const capacity = capacityOf(this.cachedEntries, this.ctx.settings().maxConcurrent);
    const key = capacity.blockedBy.map((b) => b.id).join(',');
    if (key === this.lastBlockKey) return;
    this.lastBlockKey = key;
    this._onDidChangeCapacityBlock.fire({ blockedBy: capacity.blockedBy, capacity });
    if (capacity.blockedBy.length > 0) {
      const names = capacity.blockedBy.map((b) => `${b.id} (${b.stage ?? 'cleanup'}: ${b.lastError ?? 'no error'})`);
      this.ctx.log(`capacity is full; incomplete cleanups hold slots: ${names.join(', ')}`);
    }
  }

  /**
   * Claims a slot for the first queued job and begins its launch, which holds the job's operation
   * lock until it ends; the launch (never rejecting: a failure is logged) or undefined when nothing
   * (more) can start. In an object: an async function would wait for a promise it returns.
   */
  private async claimNext(): Promise<{ launch: Promise<void> } | undefined> {
    const { store } = this.ctx;
    const queue = queueOrder(okJobs(await store.list()));
    for (const candidate of queue) {
      // A start or a person's operation is on it: looked at again once its lock is free.
      const opLock = await this.heldLocks.takeOrWatch(candidate.id);
      if (!opLock) continue;
      let launching = false;
      try {
        const claimed = await this.capacityLock.with(CAPACITY_WAIT_MS, async () => {
          const entries = await store.list();
          const job = okJobs(entries).find((j) => j.id === candidate.id);
          if (!job || job.lifecycle.state !== 'queued') return 'skip';
          // Still the leader right before the slot is taken (suspended since the pass began, it may not be).
          if (!(await this.opts.leadership.refresh())) return 'full';
          // One still without a worktree is launched too: its operation lock was free (taken above), so
          // the start preparing it died, and the launch fails it saying so.
          const max = this.ctx.settings().maxConcurrent;
          if (capacityOf(entries, max).used >= max) return 'full';
          await store.transition(job.id, 'starting', { detail: 'creating its worktree' }, { expectFrom: ['queued'] });
          return 'claimed';
        });
        if (claimed === 'full') return undefined;
        if (claimed === 'skip') continue;
        this.ctx.changed(candidate.id);
        launching = true;
        const launch = launchJob(this.ctx, this.opts.runtime, candidate.id)
          .catch((err: unknown) => this.ctx.log(`launching agent ${candidate.id} failed: ${describeError(err)}`))
          .then(() => opLock.release())
          .catch((err: unknown) => this.ctx.log(`releasing the lock of agent ${candidate.id} failed: ${describeError(err)}`));
        return { launch };
      } finally {
        if (!launching) await opLock.release();
      }
    }
    return undefined;
  }
}
