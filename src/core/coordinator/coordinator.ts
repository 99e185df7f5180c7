/**
 * The coordinator: starts agents in their own worktrees within capacity, stops
 * and retries them, and cleans them up without losing work. Any number of
 * coordinators (windows, CLI processes) may share one store:
 *  - one of them at a time holds the leadership lease; only the leader launches
 *    queued jobs, restarts crashed agents and retries failed cleanups;
 *  - every operation on a job runs under that job's operation lock, and capacity
 *    is counted and claimed under one store-wide lock, so nothing runs twice
 *    and capacity is never exceeded.
 * Everything it knows lives in the store; it keeps no state that a restart loses.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describeError, failure, usageError } from '../common/errors';
import { Emitter, Event } from '../common/event';
import { Disposable, disposableInterval, toDisposable } from '../common/lifecycle';
import { addWorktree, deleteBranch, removeWorktree, resolveCommit, resolveRepoRoot } from '../git';
import { findByEnvMarker } from '../proc';
import { assertRunnable, resolveProfile } from '../profiles';
import type { JobEntry, JobStore } from '../store';
import { isTerminalState, JobRecord } from '../store/schema';
import { stopJob } from '../worker/stopJob';
import { spawnWorker } from '../worker/spawn';
import { backoffDelayMs, DueTimes } from './backoff';
import { CapacityBlocker, capacityOf, CapacityState, isBeingPrepared, queueOrder } from './capacity';
import { CleanupRunner, observeFingerprint } from './cleanupRunner';
import { restoreAgent } from './restoreAgent';
import { retryBlocker } from '../operations/rules';
import type { RestoreResult } from '../git';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { runtimeDirFor } from '../protocol/runtimeDir';
import { openRequestEnv, removeRequestEnv, sealRequestEnv } from './requestEnv';
import { Limiter } from '../common/limiter';
import { HeldLock, OwnedLock } from './ownedLock';
import { CoordinatorSettings, resolveSettings, SettingsProvider } from './settings';
import { planStart, resumeCommand, StartRequest } from './startPlan';
import { branchNameFor, worktreePathFor } from './worktreePath';

export interface CoordinatorOptions {
  store: JobStore;
  /** Read on every use, so changed settings apply at once. */
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
  /** Period of the loop that drives the queue and cleanup retries; 0: no timer (one-shot CLI use). Default 1000. */
  tickMs?: number;
  /** Watch the store for changes by others (default true when ticking). */
  watch?: boolean;
  /** How long start waits for a spawned worker to take its job over (default 15 s). */
  launchWaitMs?: number;
  /** Jitter source for backoff (tests). */
  random?: () => number;
}

export interface StopReport {
  id: string;
  /** The execution this stop acted on (read under the job's operation lock, so a concurrent retry cannot blur it). */
  generation: number;
  /** What this stop did: cancelled a queued execution, stopped a live one, ended what an ended one left running, or nothing. */
  action: 'cancelled-queued' | 'stopped' | 'ended-leftovers' | 'none';
  /** True when the agent is proven stopped (terminal, no process of it left). */
  stopped: boolean;
  state: JobRecord['lifecycle']['state'];
  /** Processes this stop ended itself (the worker was gone, frozen, or the agent had ended with leftovers). */
  ended: { pid: number; command: string }[];
  /** Why it could not be proven stopped. */
  reason: string | null;
}

export interface StopAllReport {
  stopped: string[];
  notStopped: { id: string; reason: string }[];
}

export interface CleanupOptions {
  /** Delete the branch even when it has commits found nowhere else. */
  deleteBranch?: boolean;
  /** "Clean Up Anyway": drop what cannot be archived (over the limit, unreadable), recording it as lost. */
  dropUnarchivable?: boolean;
  /** Ignored paths that may be dropped as regenerable; default: the setting. */
  regenerable?: readonly string[];
  /** Archive size allowed without consent, in MB; default: the setting. */
  archiveLimitMB?: number;
}

export interface CleanupReport {
  job: JobRecord;
  notes: string[];
  alreadyComplete: boolean;
}

export interface CapacityBlockEvent {
  /** Agents that hold a slot only because their cleanup is incomplete (empty: no longer blocked). */
  blockedBy: CapacityBlocker[];
  capacity: CapacityState;
}

export interface CoordinatorSnapshot {
  jobs: JobEntry[];
  capacity: CapacityState;
  isLeader: boolean;
}

/** How long a person's operation waits for another process working on the same job. */
const OPERATION_WAIT_MS = 120_000;
const CAPACITY_WAIT_MS = 30_000;
const LAUNCH_POLL_MS = 20;

/** Cleanups run by one coordinator at the same time (each is mostly git and /proc work). */
const CLEANUP_CONCURRENCY = 4;
/** Passes between full re-reads of the store when nothing was seen to change. */
const FULL_REFRESH_PASSES = 10;

export class Coordinator extends Disposable {
  private readonly _onDidChangeJob = this._register(new Emitter<string>());
  /** A job's record changed (by this coordinator or, when watching, by anyone). */
  readonly onDidChangeJob: Event<string> = this._onDidChangeJob.event;

  private readonly _onDidChangeCapacityBlock = this._register(new Emitter<CapacityBlockEvent>());
  /** The set of agents blocking capacity by a failed cleanup changed. */
  readonly onDidChangeCapacityBlock: Event<CapacityBlockEvent> = this._onDidChangeCapacityBlock.event;

  private readonly _onDidLog = this._register(new Emitter<string>());
  readonly onDidLog: Event<string> = this._onDidLog.event;

  private readonly _onDidChangeLeadership = this._register(new Emitter<boolean>());
  readonly onDidChangeLeadership: Event<boolean> = this._onDidChangeLeadership.event;

  /** Resolves when the first reconcile pass has run. */
  readonly ready: Promise<void>;

  private readonly store: JobStore;
  private readonly env: NodeJS.ProcessEnv;
  private readonly runner: CleanupRunner;
  private readonly leaseLock: OwnedLock;
  private readonly capacityLock: OwnedLock;
  private lease: HeldLock | undefined;
  private disposed = false;
  private ticking: Promise<void> | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private lastBlockKey = '';
  /** Automatic cleanup attempts in flight, by repository: one at a time per repository. */
  private readonly repoAttempts = new Map<string, Promise<void>>();
  /** Due times of persisted retries, clamped once against clock jumps. */
  private readonly dueTimes = new DueTimes();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly cleanupLimiter = new Limiter(CLEANUP_CONCURRENCY);
  private cachedJobs: JobRecord[] | undefined;
  private dirty = true;
  private passesSinceList = 0;

  constructor(private readonly options: CoordinatorOptions) {
    super();
    this.store = options.store;
    this.env = options.env ?? process.env;
    const coordinatorDir = path.join(this.store.home, 'coordinator');
    this.leaseLock = new OwnedLock(path.join(coordinatorDir, 'leader.lock'), 'coordinator leadership');
    this.capacityLock = new OwnedLock(path.join(coordinatorDir, 'capacity.lock'), 'capacity');
    this.runner = new CleanupRunner({
      store: this.store,
      stopAgent: (id, graceMs) => this.stopUnlocked(id, { force: false, graceMs }).then((r) => {
        if (!r.stopped) throw failure(r.reason ?? `agent ${id} could not be stopped`);
      }),
      log: (m) => this.log(m),
      random: options.random,
    });
    this._register(toDisposable(() => {
      this.disposed = true;
      clearTimeout(this.pumpSoonTimer);
      const lease = this.lease;
      this.lease = undefined;
      if (lease) this.track(lease.release());
    }));
    const tickMs = options.tickMs ?? 1000;
    if (options.watch ?? tickMs > 0) this.watchStore();
    // Without a loop (one-shot CLI use) leadership is taken lazily, only when something is to be launched.
    this.ready = tickMs > 0 ? this.track(this.tick()) : Promise.resolve();
    if (tickMs > 0) this._register(disposableInterval(() => void this.track(this.tick()), tickMs));
  }

  get isLeader(): boolean {
    return this.lease !== undefined;
  }

  get settings(): CoordinatorSettings {
    return resolveSettings(this.options.settings);
  }

  /** Resolves when every operation this coordinator started in the background has finished. */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // ---------------------------------------------------------------- reading

  list(): Promise<JobEntry[]> {
    return this.store.list();
  }

  async snapshot(): Promise<CoordinatorSnapshot> {
    const jobs = await this.store.list();
    return { jobs, capacity: capacityOf(okJobs(jobs), this.settings.maxConcurrent), isLeader: this.isLeader };
  }

  // ---------------------------------------------------------------- start

  /**
   * Validates the request, allocates the job and — when capacity allows and this
   * coordinator leads — creates its worktree and spawns its worker. Returns the
   * record (queued when it must wait). Throws the reason, with the agent's id,
   * when the agent failed to start (the record stays, `failed`).
   */
  async start(request: StartRequest): Promise<JobRecord> {
    const settings = this.settings;
    const plan = planStart(request, settings, this.env);
    let repo: string;
    try {
      repo = await resolveRepoRoot(request.repo);
    } catch (err) {
      throw usageError(describeError(err));
    }
    let job = await this.store.create({
      title: plan.title,
      repo,
      worktree: null,
      branch: null,
      base: plan.base,
      baseSha: null,
      profile: plan.profileName,
      command: plan.command,
      cwd: repo,
      envNames: Object.keys(plan.env).sort(),
      settings: plan.settings,
    });
    const id = job.id;
    this.log(`agent ${id} created: ${plan.command.join(' ')}`);
    try {
      const baseSha = await resolveCommit(repo, plan.base);
      assertRunnable(plan.command[0], { ...this.env, ...plan.env }, repo);
      // Before the worktree is assigned (until then no pump launches it): whoever launches it runs it with this.
      await sealRequestEnv(this.store.jobDir(id), id, { ...this.env, ...plan.env }, runtimeDirFor(this.env));
      const worktree = worktreePathFor(repo, id, settings.worktreeRoot);
      job = await this.store.update(id, (j) => ({ ...j, baseSha, worktree, branch: branchNameFor(id), cwd: worktree }));
    } catch (err) {
      removeRequestEnv(this.store.jobDir(id));
      await this.failJob(id, describeError(err));
      throw failure(`Agent ${id} failed to start: ${describeError(err)}`);
    }
    this.changed(id);
    await this.pump();
    job = await this.store.read(id);
    if (job.lifecycle.state === 'failed' && job.lifecycle.startedAt === null) {
      throw failure(`Agent ${id} failed to start: ${job.lifecycle.detail ?? 'unknown reason'}`);
    }
    return job;
  }

  // ---------------------------------------------------------------- stop

  /** Stops an agent and returns only when it is proven stopped, or says what could not be proven. */
  async stop(id: string, opts: { force?: boolean } = {}): Promise<StopReport> {
    const report = await this.withJobLock(id, 'stop', () => this.stopUnlocked(id, { force: opts.force ?? false }));
    this.changed(id);
    this.schedulePump();
    return report;
  }

  /** Stops every running or queued agent; proves each stopped or lists which not and why. */
  async stopAll(opts: { force?: boolean } = {}): Promise<StopAllReport> {
    const jobs = okJobs(await this.store.list()).filter((j) => !isTerminalState(j.lifecycle.state));
    const reports = await Promise.all(
      jobs.map((j) =>
        this.stop(j.id, opts).catch(
          (err): StopReport => ({
            id: j.id,
            generation: j.lifecycle.generation,
            action: 'none',
            stopped: false,
            state: j.lifecycle.state,
            ended: [],
            reason: describeError(err),
          }),
        ),
      ),
    );
    return {
      stopped: reports.filter((r) => r.stopped).map((r) => r.id),
      notStopped: reports.filter((r) => !r.stopped).map((r) => ({ id: r.id, reason: r.reason ?? 'unknown' })),
    };
  }

  private async stopUnlocked(id: string, opts: { force: boolean; graceMs?: number }): Promise<StopReport> {
    // Under the job's operation lock: no retry can start another generation until this returns,
    // so the report describes the generation this stop acted on.
    const job = await this.store.read(id);
    const generation = job.lifecycle.generation;
    const wasEnded = isTerminalState(job.lifecycle.state);
    const hasLeftovers = wasEnded && findByEnvMarker(AGENT_MARKER_ENV, id).length > 0;
    const report = (patch: Partial<StopReport> & Pick<StopReport, 'state' | 'action'>): StopReport => ({
      id,
      generation,
      stopped: true,
      ended: [],
      reason: null,
      ...patch,
    });
    if (wasEnded && !hasLeftovers) return report({ state: job.lifecycle.state, action: 'none' });
    // Ended agents with leftovers (orphaned, completed) go the same way: stopJob ends what is left.
    const result = await stopJob(this.store, id, { force: opts.force, graceMs: opts.graceMs ?? job.settings.stopGraceMs });
    const action: StopReport['action'] = result.via === 'store' ? 'cancelled-queued' : wasEnded ? 'ended-leftovers' : result.via === 'none' ? 'none' : 'stopped';
    const ended = result.ended ?? [];
    if (result.survivors.length > 0) {
      const names = result.survivors.slice(0, 5).map((p) => `pid ${p.pid} (${p.command.split(' ')[0]})`).join(', ');
      return report({ state: result.state, action, ended, stopped: false, reason: `still running after SIGKILL: ${names}` });
    }
    if (!isTerminalState(result.state)) {
      return report({ state: result.state, action, ended, stopped: false, reason: `the agent is still ${result.state}` });
    }
    const left = findByEnvMarker(AGENT_MARKER_ENV, id);
    if (left.length > 0) {
      const names = left.slice(0, 5).map((p) => `pid ${p.pid} (${p.comm})`).join(', ');
      return report({ state: result.state, action, ended, stopped: false, reason: `still running: ${names}` });
    }
    return report({ state: result.state, action, ended });
  }

  // ---------------------------------------------------------------- retry

  /** A new execution of an ended agent in its existing worktree (with the profile's resume arguments). */
  async retry(id: string): Promise<JobRecord> {
    await this.withJobLock(id, 'retry', () => this.beginRetry(id, false));
    this.changed(id);
    await this.pump();
    const job = await this.store.read(id);
    if (job.lifecycle.state === 'failed' && job.lifecycle.startedAt === null) {
      throw failure(`Agent ${id} failed to restart: ${job.lifecycle.detail ?? 'unknown reason'}`);
    }
    return job;
  }

  private async beginRetry(id: string, automatic: boolean): Promise<JobRecord> {
    const job = await this.store.read(id);
    const blocker = retryBlocker(job);
    if (blocker) throw usageError(blocker);
    if (job.worktree === null || !existsSync(job.worktree)) {
      throw failure(`Agent ${id} cannot be retried: its worktree no longer exists.`);
    }
    const previous = job.command;
    // A person's retry runs with that person's environment; an automatic restart keeps the one of the request before.
    if (!automatic) await sealRequestEnv(this.store.jobDir(id), id, this.agentEnv(job), runtimeDirFor(this.env));
    await this.store.beginGeneration(id, { automatic });
    const next = await this.store.update(id, (j) => ({ ...j, command: resumeCommand(j.command, j.settings.resumeArgs) }));
    const generation = next.lifecycle.generation;
    await this.store.appendTimeline(id, {
      generation,
      type: automatic ? 'auto-restart' : 'retry',
      message: `${automatic ? 'automatic restart' : 'retry'} (generation ${generation}) of: ${previous.join(' ')}`,
    });
    // The terminal history continues in the same log: mark where the new execution begins.
    const output = this.store.openOutput(id);
    output.append(`\r\n\x1b[0m\x1b[2m──── ${automatic ? 'restarted' : 'retried'}: generation ${generation}, ${new Date().toISOString()} ────\x1b[0m\r\n`);
    await output.close();
    this.log(`agent ${id} queued for ${automatic ? 'an automatic restart' : 'a retry'} (generation ${generation})`);
    return next;
  }

  // ---------------------------------------------------------------- cleanup

  /** Cleans an agent up now (stopping it if needed); a person's request, so backoff starts over. */
  async cleanup(id: string, opts: CleanupOptions = {}): Promise<CleanupReport> {
    await this.store.read(id); // bad or unknown ids fail before any waiting
    const { regenerable, archiveLimitMB } = this.settings;
    const request = {
      manual: true,
      deleteBranch: opts.deleteBranch,
      dropUnarchivable: opts.dropUnarchivable,
      regenerable: opts.regenerable ?? regenerable,
      archiveLimitBytes: Math.round((opts.archiveLimitMB ?? archiveLimitMB) * 1024 * 1024),
    };
    const outcome = await this.cleanupLimiter.run(() => this.withJobLock(id, 'cleanup', () => this.runner.run(id, request)));
    this.forgetEnvIfCleaned(outcome.job);
    this.changed(id);
    this.schedulePump();
    return outcome;
  }

  /** Re-creates a cleaned agent's worktree from its evidence (at its old path, or `to`). */
  async restore(id: string, to?: string): Promise<RestoreResult> {
    await this.store.read(id);
    return this.withJobLock(id, 'restore', () => restoreAgent(this.store, id, to));
  }

  /** "Retry Cleanup Now": runs at once and resets the backoff. */
  async retryCleanup(id: string): Promise<CleanupReport> {
    const job = await this.store.read(id);
    if (job.cleanup === null) throw usageError(`Agent ${id} has no cleanup to retry.`);
    return this.cleanup(id);
  }

  /** Cleans up every ended agent not cleaned up yet, one by one, with the same guarantees. */
  async cleanUpFinished(opts: CleanupOptions = {}): Promise<CleanupReport[]> {
    const jobs = okJobs(await this.store.list()).filter(
      (j) => isTerminalState(j.lifecycle.state) && j.cleanup?.phase !== 'complete',
    );
    const reports: CleanupReport[] = [];
    for (const job of jobs) {
      try {
        reports.push(await this.cleanup(job.id, opts));
      } catch (err) {
        this.log(`cleanup of ${job.id} failed: ${describeError(err)}`);
      }
    }
    return reports;
  }

  // ---------------------------------------------------------------- the loop

  /** One pass: leadership, then (as leader) the queue, cleanup retries and restarts; capacity news for everyone. */
  tick(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.ticking ??= this.tickOnce().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async tickOnce(): Promise<void> {
    try {
      await this.refreshLeadership();
      if (this.disposed) return;
      let jobs = await this.jobsForTick();
      if (this.isLeader) {
        if (jobs.some((j) => j.lifecycle.state === 'queued')) {
          await this.pump();
          jobs = await this.jobsForTick();
        }
        this.scheduleCleanupRetries(jobs);
        await this.recoverAbandonedStarts(jobs);
        await this.autoRestart(jobs);
      }
      this.reportCapacity(jobs);
    } catch (err) {
      this.log(`coordinator pass failed: ${describeError(err)}`);
    }
  }

  /**
   * The records as of this pass. Listing reads and validates every record, so it
   * happens only when something changed (a watcher event, an own operation) or
   * every few passes as a safety net (which also reconciles dead owners).
   */
  private async jobsForTick(): Promise<JobRecord[]> {
    this.passesSinceList++;
    if (this.dirty || this.cachedJobs === undefined || this.passesSinceList >= FULL_REFRESH_PASSES) {
      this.dirty = false;
      this.passesSinceList = 0;
      this.cachedJobs = okJobs(await this.store.list());
    }
    return this.cachedJobs;
  }

  private async refreshLeadership(): Promise<void> {
    if (this.lease) {
      const owner = await this.leaseLock.owner();
      if (owner?.token === this.lease.token) return;
      this.lease = undefined;
      this.log('lost the coordinator lease');
      this._onDidChangeLeadership.fire(false);
    }
    if (this.disposed) return;
    const lease = await this.leaseLock.tryAcquire();
    if (!lease) return;
    if (this.disposed) {
      await lease.release();
      return;
    }
    this.lease = lease;
    this.log('this coordinator now leads: it launches queued agents and retries cleanups');
    this._onDidChangeLeadership.fire(true);
  }

  private reportCapacity(jobs: JobRecord[]): void {
    const capacity = capacityOf(jobs, this.settings.maxConcurrent);
    const key = capacity.blockedBy.map((b) => b.id).join(',');
    if (key === this.lastBlockKey) return;
    this.lastBlockKey = key;
    this._onDidChangeCapacityBlock.fire({ blockedBy: capacity.blockedBy, capacity });
    if (capacity.blockedBy.length > 0) {
      const names = capacity.blockedBy.map((b) => `${b.id} (${b.stage ?? 'cleanup'}: ${b.lastError ?? 'no error'})`);
      this.log(`capacity is full; incomplete cleanups hold slots: ${names.join(', ')}`);
    }
  }

  /** Launches queued jobs in order while capacity allows. Only the leader does. */
  private pump(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.pumpAgain = false;
          if (!this.isLeader) await this.refreshLeadership();
          if (!this.isLeader) return;
          while (!this.disposed && (await this.launchNext())) {
            // keep going while capacity allows
          }
        } while (this.pumpAgain && !this.disposed);
      } catch (err) {
        this.log(`launching queued agents failed: ${describeError(err)}`);
      } finally {
        this.pumping = undefined;
      }
    })();
    return this.pumping;
  }

  private schedulePump(): void {
    if (this.isLeader) void this.track(this.pump());
  }

  /** Claims a slot for the first queued job and launches it; false when nothing (more) can start. */
  private async launchNext(): Promise<boolean> {
    const queue = queueOrder(okJobs(await this.store.list()));
    for (const candidate of queue) {
      const opLock = await this.jobLock(candidate.id).tryAcquire();
      if (!opLock) continue; // a person's operation is on it; the next pass sees it again
      try {
        const claimed = await this.capacityLock.with(CAPACITY_WAIT_MS, async () => {
          const jobs = okJobs(await this.store.list());
          const job = jobs.find((j) => j.id === candidate.id);
          if (!job || job.lifecycle.state !== 'queued' || isBeingPrepared(job)) return 'skip';
          if (capacityOf(jobs, this.settings.maxConcurrent).used >= this.settings.maxConcurrent) return 'full';
          await this.store.transition(job.id, 'starting', { detail: 'creating its worktree' }, { expectFrom: ['queued'] });
          return 'claimed';
        });
        if (claimed === 'full') return false;
        if (claimed === 'skip') continue;
        this.changed(candidate.id);
        await this.launch(candidate.id);
        return true;
      } finally {
        await opLock.release();
      }
    }
    return false;
  }

  /** Worktree (first generation) and worker for a job in `starting`; any failure is undone and recorded. */
  private async launch(id: string): Promise<void> {
    const job = await this.store.read(id);
    let createdWorktree = false;
    try {
      if (job.worktree === null || job.branch === null || job.baseSha === null) {
        throw failure('it has no worktree assigned');
      }
      // The environment of the request that created this execution, never this launcher's own.
      const env = openRequestEnv(this.store.jobDir(id), id, runtimeDirFor(this.env));
      if (job.lifecycle.generation === 1 && !existsSync(job.worktree)) {
        await addWorktree(job.repo, { path: job.worktree, branch: job.branch, baseSha: job.baseSha });
        createdWorktree = true;
      } else if (!existsSync(job.worktree)) {
        throw failure(`its worktree ${job.worktree} no longer exists`);
      }
      assertRunnable(job.command[0], env, job.worktree);
      await spawnWorker({
        store: this.store,
        home: this.store.home,
        jobId: id,
        generation: job.lifecycle.generation,
        workerScript: this.options.workerScript,
        execPath: this.options.execPath,
        nodePtyPath: this.options.nodePtyPath,
        env,
      });
    } catch (err) {
      await this.undoLaunch(job, createdWorktree, describeError(err));
      return;
    }
    const settled = await this.waitWhileStarting(id);
    if (settled.lifecycle.state === 'failed' && settled.lifecycle.startedAt === null && createdWorktree) {
      // The worker could not start the agent: the worktree holds nothing of it yet.
      await this.undoLaunch(settled, true, settled.lifecycle.detail ?? 'the agent did not start');
    }
    this.changed(id);
  }

  private async undoLaunch(job: JobRecord, createdWorktree: boolean, reason: string): Promise<void> {
    const id = job.id;
    const problems: string[] = [];
    if (createdWorktree && job.worktree && job.branch) {
      await removeWorktree(job.repo, job.worktree).catch((err) => problems.push(`worktree: ${describeError(err)}`));
      await deleteBranch(job.repo, job.branch, { force: true }).catch((err) => problems.push(`branch: ${describeError(err)}`));
      if (problems.length === 0) {
        await this.store.update(id, (j) => ({ ...j, worktree: null, branch: null, cwd: j.repo }));
      }
    }
    // A first generation that never ran cannot be retried: its environment is of no further use.
    if (job.lifecycle.generation === 1) removeRequestEnv(this.store.jobDir(id));
    const detail = problems.length ? `${reason} (undo incomplete: ${problems.join('; ')})` : reason;
    await this.failJob(id, detail);
    this.log(`agent ${id} failed to start: ${detail}`);
  }

  /** A cleaned-up agent is never launched again: its saved environment goes. */
  private forgetEnvIfCleaned(job: JobRecord): void {
    if (job.cleanup?.phase !== 'complete') return;
    try {
      removeRequestEnv(this.store.jobDir(job.id));
    } catch (err) {
      this.log(`could not remove the saved environment of ${job.id}: ${describeError(err)}`);
    }
  }

  private async failJob(id: string, detail: string): Promise<void> {
    const job = await this.store.read(id);
    if (!isTerminalState(job.lifecycle.state)) {
      await this.store.transition(id, 'failed', { detail: detail.slice(0, 2000) });
    }
    this.changed(id);
  }

  /** Waits until the spawned worker has started the agent (or the job ended, or the wait ran out). */
  private async waitWhileStarting(id: string): Promise<JobRecord> {
    const deadline = Date.now() + (this.options.launchWaitMs ?? 15_000);
    for (;;) {
      const job = await this.store.read(id);
      if (job.lifecycle.state !== 'starting' || Date.now() > deadline) return job;
      await new Promise((resolve) => setTimeout(resolve, LAUNCH_POLL_MS));
    }
  }

  private agentEnv(job: JobRecord): NodeJS.ProcessEnv {
    let extra: Record<string, string> = {};
    if (job.profile !== null) {
      try {
        extra = resolveProfile(job.profile, this.settings.profiles, this.env).env;
      } catch {
        // The profile was removed from the settings since: run with the base environment.
      }
    }
    return { ...this.env, ...extra };
  }

  /** Picks, per repository, the most overdue incomplete cleanup and tries it again in the background. */
  private scheduleCleanupRetries(jobs: JobRecord[]): void {
    const now = Date.now();
    const byRepo = new Map<string, JobRecord>();
    for (const job of jobs) {
      const c = job.cleanup;
      if (!c || c.phase === 'complete' || c.awaitingConsent) continue;
      if (c.phase === 'incomplete' && this.dueTimes.due(job.id, c.nextAttemptAt, now) > now) continue;
      const best = byRepo.get(job.repo);
      if (!best || this.dueTimes.due(best.id, best.cleanup!.nextAttemptAt, now) > this.dueTimes.due(job.id, c.nextAttemptAt, now)) byRepo.set(job.repo, job);
    }
    for (const [repo, job] of byRepo) {
      if (this.repoAttempts.has(repo)) continue;
      const attempt = this.automaticCleanup(job.id).finally(() => this.repoAttempts.delete(repo));
      this.repoAttempts.set(repo, attempt);
      this.track(attempt);
    }
  }

  private async automaticCleanup(id: string): Promise<void> {
    const lock = await this.jobLock(id).tryAcquire();
    if (!lock) return; // someone is working on it right now
    try {
      const job = await this.store.read(id);
      const c = job.cleanup;
      if (!c || c.phase === 'complete' || c.awaitingConsent) return;
      const now = Date.now();
      if (c.phase === 'incomplete') {
        if (this.dueTimes.due(id, c.nextAttemptAt, now) > now) return;
        if (c.fingerprint !== null && (await observeFingerprint(job)) === c.fingerprint) {
          // Nothing it looked at changed: the same attempt would fail the same way.
          await this.store.update(id, (j) => ({
            ...j,
            cleanup: { ...j.cleanup!, nextAttemptAt: new Date(now + backoffDelayMs(c.failures, this.options.random)).toISOString() },
          }));
          return;
        }
      } else {
        this.log(`resuming the cleanup of ${id}, interrupted at ${c.phase}`);
      }
      const outcome = await this.cleanupLimiter.run(() => this.runner.run(id, { manual: false }));
      this.forgetEnvIfCleaned(outcome.job);
      this.changed(id);
    } catch (err) {
      this.log(`automatic cleanup of ${id} failed: ${describeError(err)}`);
    } finally {
      await lock.release();
    }
    this.schedulePump();
  }

  /**
   * A job left in `starting` with no worker ever spawned: the coordinator that
   * claimed its slot died mid-launch. Its op lock is free then (a launch holds it).
   */
  private async recoverAbandonedStarts(jobs: JobRecord[]): Promise<void> {
    for (const candidate of jobs) {
      if (candidate.lifecycle.state !== 'starting' || candidate.launch !== null || candidate.execution !== null) continue;
      const lock = await this.jobLock(candidate.id).tryAcquire();
      if (!lock) continue;
      try {
        const job = await this.store.read(candidate.id);
        if (job.lifecycle.state !== 'starting' || job.launch !== null || job.execution !== null) continue;
        // A first generation that never ran: its worktree and branch (even half-made, folder missing) are the launch's own.
        const ours = job.lifecycle.generation === 1 && job.lifecycle.startedAt === null && job.worktree !== null;
        await this.undoLaunch(job, ours, 'the process launching it stopped before its worker started');
      } catch (err) {
        this.log(`could not recover the abandoned start of ${candidate.id}: ${describeError(err)}`);
      } finally {
        await lock.release();
      }
    }
  }

  /** Off by default: a crashed agent is restarted until `recoveryLimit` restarts in a row. */
  private async autoRestart(jobs: JobRecord[]): Promise<void> {
    for (const job of jobs) {
      const s = job.settings;
      if (!s.autoRestart || job.cleanup !== null || job.recoveries >= s.recoveryLimit) continue;
      if (job.lifecycle.state !== 'failed' && job.lifecycle.state !== 'orphaned') continue;
      if (job.lifecycle.startedAt === null) continue; // never ran: a start failure, not a crash
      if (job.worktree === null || !existsSync(job.worktree)) continue;
      const lock = await this.jobLock(job.id).tryAcquire();
      if (!lock) continue;
      try {
        await this.beginRetry(job.id, true);
        this.changed(job.id);
      } catch (err) {
        this.log(`automatic restart of ${job.id} failed: ${describeError(err)}`);
      } finally {
        await lock.release();
      }
    }
  }

  // ---------------------------------------------------------------- plumbing

  private jobLock(id: string): OwnedLock {
    this.store.jobDir(id); // validates the id before it becomes part of a path
    return new OwnedLock(path.join(this.store.home, 'coordinator', 'ops', `${id}.lock`), `operation on ${id}`);
  }

  private async withJobLock<T>(id: string, what: string, fn: () => Promise<T>): Promise<T> {
    await this.store.read(id); // bad or unknown ids fail before any waiting
    const held = await this.jobLock(id).acquire(OPERATION_WAIT_MS).catch((err) => {
      throw failure(`Could not ${what} agent ${id}: ${describeError(err)}`);
    });
    try {
      return await fn();
    } finally {
      await held.release();
    }
  }

  private watchStore(): void {
    try {
      const watcher = this._register(this.store.watch());
      this._register(
        watcher.onDidChangeJob((id) => {
          this.dirty = true;
          this._onDidChangeJob.fire(id);
          this.schedulePassSoon();
        }),
      );
    } catch (err) {
      this.log(`not watching the store (${describeError(err)}); relying on the periodic pass`);
    }
  }

  private pumpSoonTimer: NodeJS.Timeout | undefined;

  /** Coalesces bursts of store changes into one early pass (a queued job appeared, a slot freed). */
  private schedulePassSoon(): void {
    if (!this.isLeader || this.pumpSoonTimer || this.disposed) return;
    this.pumpSoonTimer = setTimeout(() => {
      this.pumpSoonTimer = undefined;
      void this.track(this.tick());
    }, 50);
    this.pumpSoonTimer.unref?.();
  }

  private changed(id: string): void {
    this.dirty = true;
    if (!this.disposed) this._onDidChangeJob.fire(id);
  }

  private log(message: string): void {
    this.options.log?.(message);
    if (!this.disposed) this._onDidLog.fire(message);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise)).catch(() => undefined);
    return promise;
  }
}

function okJobs(entries: readonly JobEntry[]): JobRecord[] {
  const out: JobRecord[] = [];
  for (const e of entries) if (e.ok) out.push(e.job);
  return out;
}
