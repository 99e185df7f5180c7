/**
 * The coordinator: the public face of core for the CLI and the windows. It
 * composes the parts, each in its own module:
 *  - the operations (`core/operations`): start, stop, retry, cleanup, restore,
 *    send — the one door for a person's changes, each under the job's lock;
 *  - the scheduler (`core/scheduler`): launches, cleanup retries, restarts —
 *    only in the process holding the leader lease, woken by store changes;
 *  - the store's policy (`store.policy`): capacity, stop grace and what cleanup
 *    may drop, one file every process reads; the settings provider writes it.
 * Everything it knows lives in the store; it keeps no state that a restart loses.
 */
import { describeError, failure } from '../common/errors';
import { Emitter, Event } from '../common/event';
import { Disposable, toDisposable } from '../common/lifecycle';
import { Limiter } from '../common/limiter';
import { Closing } from '../common/closing';
import type { RestoreResult } from '../git';
import type { OperationContext } from '../operations/context';
import { Operations, type RetryOptions } from '../operations/operations';
import type { CleanupOptions, CleanupReport, StopAllReport, StopReport } from '../operations/types';
import type { ReviewSent } from '../operations/sendReview';
import { Leadership } from '../scheduler/leadership';
import { CapacityBlockEvent, Scheduler } from '../scheduler/scheduler';
import { pumpIfQueued } from '../scheduler/oneShot';
import type { JobEntry, JobStore, StorePolicy } from '../store';
import type { Check, JobRecord } from '../store/schema';
import { capacityOf, CapacityState } from './capacity';
import { CleanupRunner } from './cleanupRunner';
import { CoordinatorSettings, policyPartOf, resolveSettings, SettingsProvider } from './settings';
import type { StartRequest } from './startPlan';
import { stopLocked } from '../operations/stop';
import { compareGroup, type GroupComparison } from '../attempts/compare';
import { runCheck } from '../operations/check';
import { GroupOperations, type KeepReport, type SendToGroupReport, type StartAttemptsResult } from '../operations/groups';

export type { CleanupOptions, CleanupReport, StopAllReport, StopReport } from '../operations/types';
import type { ApplyReport } from '../operations/apply';
import type { LandingChoices } from '../operations/landingPrep';
import type { MergeReport, MergeRequest } from '../operations/merge';
import type { PrunePlan, PruneReport, PruneRequest } from '../operations/prune';
import type { ForgetReport, ForgetRequest } from '../operations/forget';
import type { ArchivedWork } from '../operations/archivedWork';
import type { PullRequestReport, PullRequestRequest } from '../operations/pullRequest';
import type { UpdateReport, UpdateRequest } from '../operations/update';
export type { CapacityBlockEvent } from '../scheduler/scheduler';

export interface CoordinatorOptions {
  store: JobStore;
  /**
   * Read on every use, so changed settings apply at once. Its store-wide part (maxConcurrent,
   * stopGraceSeconds, regenerable, archiveLimitMB) is written to the store's policy when it changes, and read back from there.
   */
  settings?: SettingsProvider;
  /** The worker bundle (dist/worker.js). */
  workerScript: string;
  /** The Node that runs workers (in VS Code: process.execPath with ELECTRON_RUN_AS_NODE). */
  execPath?: string;
  /** node-pty for workers (VS Code's own copy when run from the extension). */
  nodePtyPath?: string;
  /** Base environment of workers and agents (default process.env). */
  env?: NodeJS.ProcessEnv;
  log?: (message: string) => void;
  /**
   * 0: no scheduler (one-shot CLI use: leadership is taken only to launch what this process queued).
   * Otherwise the scheduler runs, woken by store changes, and this is how often a follower tries to
   * take the leader lease. Default 3000.
   */
  tickMs?: number;
  /** Watch the store for changes by others (default true when the scheduler runs). */
  watch?: boolean;
  /** How long start waits for a spawned worker to take its job over (default 15 s). */
  launchWaitMs?: number;
  /** Jitter source for backoff (tests). */
  random?: () => number;
  /** How far ahead a persisted cleanup retry time is believed (default 1.1× the backoff cap; tests). */
  retryTrustMs?: number;
  /** The adapter's word that a repository is trusted, so its `.paddock.json` check may run (VS Code: a trusted workspace). */
  repoTrusted?: (repo: string) => boolean;
}

export interface CoordinatorSnapshot {
  jobs: JobEntry[];
  capacity: CapacityState;
  isLeader: boolean;
}

/** Cleanups run by one coordinator at the same time (each is mostly git and /proc work). */
const CLEANUP_CONCURRENCY = 4;

export class Coordinator extends Disposable {
  private readonly _onDidChangeJob = this._register(new Emitter<string>());
  /** A job's record changed (by this coordinator or, when watching, by anyone). */
  readonly onDidChangeJob: Event<string> = this._onDidChangeJob.event;

  /** The set of agents blocking capacity by a failed cleanup changed. */
  readonly onDidChangeCapacityBlock: Event<CapacityBlockEvent>;

  /** Resolves when the first scheduler pass has run. */
  readonly ready: Promise<void>;

  private readonly store: JobStore;
  private readonly leadership: Leadership;
  private readonly scheduler: Scheduler;
  private readonly operations: Operations;
  private readonly groups: GroupOperations;
  private readonly ctx: OperationContext;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Ends the checks and teardowns this process runs when it closes (they run in sessions of their own). */
  private readonly closing = new Closing();
  /** The provider's store-wide values last written to the policy (JSON), so they are written once per change. */
  private syncedPolicy = '';

  constructor(private readonly options: CoordinatorOptions) {
    super();
    this.store = options.store;
    const env = options.env ?? process.env;
    // Disposed without `close` (a process that is not closing in a hurry): what it runs is ended all the same.
    this._register(toDisposable(() => this.closing.abort()));
    const tickMs = options.tickMs ?? 3000;
    const scheduling = tickMs > 0;
    const ctx: OperationContext = {
      store: this.store,
      env,
      cleanupLimiter: new Limiter(CLEANUP_CONCURRENCY),
      runner: new CleanupRunner({
        store: this.store,
        stopAgent: (id, graceMs) =>
          stopLocked(this.store, id, { force: false, graceMs }).then((r) => {
            if (!r.stopped) throw failure(r.reason ?? `agent ${id} could not be stopped`);
          }),
        log: (m) => this.log(m),
        random: options.random,
        env,
        closing: this.closing,
      }),
      settings: () => this.settings,
      log: (m) => this.log(m),
      changed: (id) => this.changed(id),
      closing: this.closing,
      // A queued agent's: the CLI's (one-shot) reads it before its command returns and leaves it to a coordinator (bugs 193, 220).
      lockLetGo: (id) => pumpIfQueued(ctx, id, () => this.scheduler.pumpForOperation()),
    };
    // Registered first, so disposed last: after the leadership has let go of its lease.
    this._register(toDisposable(() => this.track(this.leadership.whenReleased())));
    this.leadership = this._register(new Leadership(this.store.home, (m) => this.log(m)));
    const watcher = (options.watch ?? scheduling) ? this.watchStore() : undefined;
    this.scheduler = this._register(
      new Scheduler(ctx, {
        runtime: {
          workerScript: options.workerScript,
          execPath: options.execPath,
          nodePtyPath: options.nodePtyPath,
          launchWaitMs: options.launchWaitMs ?? 15_000,
        },
        leadership: this.leadership,
        // A one-shot process does not act on others' changes.
        watcher: scheduling ? watcher : undefined,
        leaseRetryMs: tickMs,
        oneShot: !scheduling,
        track: (p) => this.track(p),
        random: options.random,
        repoTrusted: options.repoTrusted,
        retryTrustMs: options.retryTrustMs,
      }),
    );
    this.onDidChangeCapacityBlock = this.scheduler.onDidChangeCapacityBlock;
    this.operations = new Operations(ctx, this.scheduler);
    this.groups = new GroupOperations(ctx, this.operations);
    this.ctx = ctx;
    this.syncPolicy();
    // Without a scheduler (one-shot CLI use) leadership is taken lazily, only when something is to be launched.
    this.ready = scheduling ? this.track(this.scheduler.pass()) : Promise.resolve();
  }

  /** A one-shot coordinator's operation freed a slot or let go of a queued agent: the CLI starts a background coordinator if none leads (bug 220). */
  get queueLeft(): boolean {
    return this.scheduler.queueLeft;
  }

  get isLeader(): boolean {
    return this.leadership.isLeader;
  }

  /** The settings in force: the provider's, with the store-wide ones from the store's policy (or the defaults). */
  get settings(): CoordinatorSettings {
    this.syncPolicy();
    return resolveSettings(this.options.settings, this.store.policy.read());
  }

  /**
   * Sets store-wide policy for every process on this store (the extension calls
   * this when `paddock.maxConcurrent`, `paddock.stopGraceSeconds`, … change).
   * Invalid values are refused in one sentence; returns the policy in force.
   */
  writePolicy(change: StorePolicy): StorePolicy {
    const policy = this.store.policy.write(change);
    this.scheduler.markDirty();
    this.scheduler.schedulePump(); // more capacity may launch what waits
    return policy;
  }

  /** An attempt's automatic check this coordinator found nothing to run for, and will not look at again. */
  checkFoundNothingToRun(job: JobRecord): boolean {
    return this.scheduler.checkFoundNothingToRun(job);
  }

  /** Forgets "nothing to run" for attempts whose check configuration or trust changed since it was found. */
  forgetChangedCheckConfig(jobs: readonly JobRecord[]): Promise<void> {
    return this.scheduler.forgetChangedCheckConfig(jobs);
  }

  /** Something this coordinator started (a launch, a cleanup attempt) has not finished yet. */
  get hasWorkInFlight(): boolean {
    return this.inFlight.size > 0;
  }

  /**
   * This process is about to exit (a window closing or reloading): the checks and worktree teardowns
   * it runs — in sessions of their own, which nothing else would end — are ended with everything
   * they started, and recorded so (a person's check failed, an attempt's check queued for the next
   * leader, a cleanup incomplete at `terminating` with nothing removed). Resolves when they have, or
   * after `boundMs`. Agents are not touched: they belong to their workers.
   */
  close(boundMs: number): Promise<void> {
    return this.closing.close(boundMs);
  }

  /** Resolves when every operation this coordinator started in the background has finished. */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  list(): Promise<JobEntry[]> {
    return this.store.list();
  }

  async snapshot(): Promise<CoordinatorSnapshot> {
    const jobs = await this.store.list();
    return { jobs, capacity: capacityOf(jobs, this.settings.maxConcurrent), isLeader: this.isLeader };
  }

  /**
   * One scheduler pass now (Refresh): leadership, then as leader the queue, cleanup retries and restarts.
   * `listing`: the store as the caller has just read it, so the pass does not read it again.
   */
  tick(listing?: readonly JobEntry[]): Promise<void> {
    this.scheduler.markDirty();
    return this.scheduler.pass(listing);
  }

  // ---------------------------------------------------------------- operations

  start(request: StartRequest): Promise<JobRecord> {
    return this.operations.start(request);
  }

  stop(id: string, opts: { force?: boolean } = {}): Promise<StopReport> {
    return this.operations.stop(id, opts);
  }

  stopAll(opts: { force?: boolean } = {}): Promise<StopAllReport> {
    return this.operations.stopAll(opts);
  }

  retry(id: string, opts: RetryOptions = {}): Promise<JobRecord> {
    return this.operations.retry(id, opts);
  }

  cleanup(id: string, opts: CleanupOptions = {}): Promise<CleanupReport> {
    return this.operations.cleanup(id, opts);
  }

  merge(id: string, req?: MergeRequest): Promise<MergeReport> {
    return this.operations.merge(id, req);
  }

  update(id: string, req?: UpdateRequest): Promise<UpdateReport> {
    return this.operations.update(id, req);
  }

  apply(id: string, choices?: Pick<LandingChoices, 'running'>): Promise<ApplyReport> {
    return this.operations.apply(id, choices);
  }

  pullRequest(id: string, req?: PullRequestRequest): Promise<PullRequestReport> {
    return this.operations.pullRequest(id, req);
  }

  forget(id: string, req?: ForgetRequest): Promise<ForgetReport> {
    return this.operations.forget(id, req);
  }

  archivedWork(id: string): Promise<ArchivedWork | null> {
    return this.operations.archivedWork(id);
  }

  planPrune(req?: PruneRequest): Promise<PrunePlan> {
    return this.operations.planPrune(req);
  }

  prune(plan: PrunePlan, req?: PruneRequest): Promise<PruneReport> {
    return this.operations.prune(plan, req);
  }

  restore(id: string, to?: string): Promise<RestoreResult> {
    return this.operations.restore(id, to);
  }

  retryCleanup(id: string): Promise<CleanupReport> {
    return this.operations.retryCleanup(id);
  }

  cleanUpFinished(opts: CleanupOptions = {}): Promise<CleanupReport[]> {
    return this.operations.cleanUpFinished(opts);
  }

  /** Types `text` and Enter into a running or waiting agent's terminal (refused in one sentence when too long or not running). */
  send(id: string, text: string): Promise<void> {
    return this.operations.send(id, text);
  }

  /** Sends the agent's unsent review comments (typed in, or as a retry's prompt) and marks them sent. */
  sendReview(id: string): Promise<ReviewSent> {
    return this.operations.sendReview(id);
  }

  // ---------------------------------------------------------------- attempts and checks

  /** Several attempts at one task, one group: see `GroupOperations.startAttempts`. */
  startAttempts(request: StartRequest, attempts: number, profiles: readonly string[] = []): Promise<StartAttemptsResult> {
    return this.groups.startAttempts(request, attempts, profiles);
  }

  stopGroup(groupId: string, opts: { force?: boolean } = {}): Promise<StopAllReport> {
    return this.groups.stopGroup(groupId, opts);
  }

  sendToGroup(groupId: string, text: string): Promise<SendToGroupReport> {
    return this.groups.sendToGroup(groupId, text);
  }

  /** Keep This One: the group's other attempts are cleaned up (evidence kept). */
  keepAttempt(id: string): Promise<KeepReport> {
    return this.groups.keepAttempt(id);
  }

  /** Runs the check command in the agent's worktree now (waiting for a capacity slot) and records the result. */
  async check(id: string, opts: { settingCommand?: string | null; onWaiting?: () => void; abort?: AbortSignal } = {}): Promise<Check> {
    const check = await runCheck(this.ctx, id, { ...opts, waitForSlot: true, repoTrusted: this.options.repoTrusted });
    await this.scheduler.pumpForOperation(); // the slot it held is free again
    return check!;
  }

  compare(groupId: string): Promise<GroupComparison> {
    return compareGroup(this.store, groupId);
  }

  /** The provider's store-wide values go to the store's policy when they change (never for a process without a provider). */
  private syncPolicy(): void {
    if (!this.options.settings || this._store.isDisposed) return;
    const part = policyPartOf(this.options.settings);
    const key = JSON.stringify(part);
    if (key === this.syncedPolicy) return;
    this.syncedPolicy = key;
    if (Object.keys(part).length === 0) return;
    try {
      this.store.policy.write(part);
    } catch (err) {
      this.log(`could not write the store policy: ${describeError(err)}`);
    }
  }

  private watchStore() {
    try {
      const watcher = this._register(this.store.watch());
      this._register(watcher.onDidChangeJob((id) => this._onDidChangeJob.fire(id)));
      return watcher;
    } catch (err) {
      this.log(`not watching the store (${describeError(err)}); acting on this process's own operations only`);
      return undefined;
    }
  }

  private changed(id: string): void {
    this.scheduler.markDirty();
    if (!this._store.isDisposed) this._onDidChangeJob.fire(id);
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise)).catch(() => undefined);
    return promise;
  }
}
