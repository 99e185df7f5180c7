/**
 * The one way Paddock touches job state on disk. Several processes (windows,
 * workers, the CLI) use one store at once: every read-modify-write runs under the
 * job's short lock, records are replaced durably and atomically, workers' writes
 * are fenced by (owner token, generation), and every reader reconciles a job
 * whose owner is gone before returning it. See docs/store.md.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { describeError, failure, usageError } from '../common/errors';
import { identityOf, livenessOf } from '../proc/identity';
import { commitTemp, ensureDir, FILE_MODE, sweepTempFiles, writeTemp } from './durable';
import { ExecutionClaim, Fence, HeldExecution } from './executionClaim';
import { applyNewGeneration, applyTransition, assertLegalTransition, LifecyclePatch } from './lifecycle';
import { DEFAULT_LOCK_OPTIONS, LockGuard, LockOptions, withLock } from './locks';
import { DEFAULT_OUTPUT_CAP, OutputLog, readSegments, SegmentedOutputLog } from './outputLog';
import { judgeOwnership, LAUNCH_FAILED_DETAIL } from './ownership';
import { assertJobId, defaultHome, isJobId, StoreLayout } from './paths';
import { redactCredentialArguments } from './credentialArgs';
import { Redactor } from './redactor';
import { isTerminalState, JobRecord, JobRecordSchema, Lifecycle, LifecycleState, TimelineEntry, TimelineEntrySchema } from './schema';
import { initialRecord, NewJob } from './newJob';
import { describeIssues, Loaded, loadRecord, recordText } from './records';
import { releaseExecutionLock, takeExecutionLock } from './executionLock';
import { appendTimelineLine, readTimelineFile } from './timeline';
import { JobWatcher, StoreWatcher, WatchOptions } from './watcher';
import { PolicyFile } from './policy';

export type JobEntry = { id: string; ok: true; job: JobRecord } | { id: string; ok: false; reason: string };

export type { NewJob };

export interface JobStoreOptions {
  home: string;
  /** Retained terminal output per job; default 8 MiB. */
  outputCapBytes?: number;
  /** Applied to output, details, errors and timeline messages before they reach disk. */
  redactor?: Redactor;
  /**
   * Where the values of each job's secret variables (`settings.secretEnvNames`)
   * are looked up, so that a process that is not the job's worker (cleanup,
   * the CLI) redacts them too; default `process.env`, which agents inherit.
   */
  secretEnv?: NodeJS.ProcessEnv;
  log?: (msg: string) => void;
  /** Short record lock tuning (tests, slow file systems). */
  lock?: Partial<LockOptions>;
}

export interface UpdateOptions {
  fence?: Fence;
}

export interface TransitionOptions extends UpdateOptions {
  /** Refuse (failure, code UNEXPECTED_STATE) unless the job is in one of these states. */
  expectFrom?: LifecycleState[];
}

/** The worker a forced stop saw: its identity, and its owner token once it had claimed the job. */
export interface UnresponsiveWorker {
  generation: number;
  pid: number;
  startTime: number;
  ownerToken: string | null;
}

export interface ClaimOptions {
  generation: number;
  socketPath: string;
  socketToken: string;
}

/** A job dir without a record younger than this is a create in progress, not damage. */
const CREATE_GRACE_MS = 30_000;
const LIST_CONCURRENCY = 32;

interface Mutation {
  next: JobRecord;
  timeline?: Omit<TimelineEntry, 'at' | 'generation'>[];
}

export class JobStore {
  readonly home: string;
  /** The store-wide policy (capacity, stop grace, what cleanup may drop), shared by every process. */
  readonly policy: PolicyFile;
  private readonly layout: StoreLayout;
  private readonly outputCapBytes: number;
  private readonly redactor: Redactor;
  private readonly secretEnv: NodeJS.ProcessEnv;
  private readonly log: (msg: string) => void;
  private readonly lockOptions: LockOptions;
  private changesReady = false;
  private changeCounter = 0;

  constructor(opts: JobStoreOptions) {
    this.home = opts.home;
    this.layout = new StoreLayout(opts.home);
    this.outputCapBytes = opts.outputCapBytes ?? DEFAULT_OUTPUT_CAP;
    if (!(this.outputCapBytes >= 1024)) throw usageError('The output cap must be at least 1 KiB.');
    this.redactor = opts.redactor ?? new Redactor();
    this.secretEnv = opts.secretEnv ?? process.env;
    this.log = opts.log ?? (() => undefined);
    this.lockOptions = { ...DEFAULT_LOCK_OPTIONS, ...opts.lock };
    this.policy = new PolicyFile(opts.home, this.log);
  }

  static defaultHome(env?: NodeJS.ProcessEnv): string {
    return defaultHome(env);
  }

  jobDir(id: string): string {
    return this.layout.jobDir(id);
  }

  patchPath(id: string): string {
    return this.layout.patchPath(id);
  }

  // ---- create -------------------------------------------------------------

  async create(init: NewJob): Promise<JobRecord> {
    ensureDir(this.layout.jobsDir);
    const id = this.allocateId();
    try {
      return await this.writeNewJob(id, init);
    } catch (err) {
      // A job folder without its record (full disk, read-only store) would list as unreadable
      // forever: nothing was started for it yet, so it goes.
      fs.rmSync(this.layout.jobDir(id), { recursive: true, force: true });
      throw err;
    }
  }

  private async writeNewJob(id: string, init: NewJob): Promise<JobRecord> {
    const dir = this.layout.jobDir(id);
    ensureDir(this.layout.outputDir(id));
    ensureDir(this.layout.evidenceDir(id));
    const now = new Date().toISOString();
    const candidate = initialRecord(id, init, now);
    const parsed = JobRecordSchema.safeParse(candidate);
    if (!parsed.success) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw usageError(`The new agent is invalid: ${describeIssues(parsed.error.issues)}.`, 'INVALID_JOB');
    }
    const job = parsed.data;
    const temp = await writeTemp(this.layout.recordFile(id), recordText(job));
    commitTemp(temp, this.layout.recordFile(id));
    appendTimelineLine(this.layout.timelineFile(id), { at: now, generation: 1, type: 'created', to: 'queued' });
    this.touchChange(id);
    return job;
  }

  /** The mkdir of jobs/<id> is the exclusive claim on an id: no two processes can both succeed. */
  private allocateId(): string {
    for (let attempt = 0; attempt < 50; attempt++) {
      const id = (BigInt(`0x${randomBytes(8).toString('hex')}`) % 36n ** 8n).toString(36).padStart(8, '0');
      try {
        fs.mkdirSync(this.layout.jobDir(id), { mode: 0o700 });
        return id;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    throw failure('Could not allocate a new agent id.');
  }

  // ---- reading ------------------------------------------------------------

  async read(id: string): Promise<JobRecord> {
    assertJobId(id);
    const loaded = await this.load(id);
    if (loaded.kind === 'missing') throw failure(`No agent ${id} exists.`, 'NOT_FOUND');
    if (loaded.kind === 'unreadable') throw failure(`Agent ${id} is unreadable: ${loaded.reason}.`, 'UNREADABLE');
    return this.reconciled(loaded.job);
  }

  async tryRead(id: string): Promise<JobEntry> {
    assertJobId(id);
    const loaded = await this.load(id);
    if (loaded.kind === 'missing') return { id, ok: false, reason: 'no such agent' };
    if (loaded.kind === 'unreadable') return { id, ok: false, reason: loaded.reason };
    return { id, ok: true, job: await this.reconciled(loaded.job) };
  }

  /** Every job, unreadable ones included (ok: false with the reason), oldest first; dead owners reconciled. */
  async list(): Promise<JobEntry[]> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.layout.jobsDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const ids = names.filter(isJobId);
    const entries: (JobEntry | undefined)[] = new Array(ids.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ids.length; i = next++) entries[i] = await this.listEntry(ids[i]);
    };
    await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, ids.length) }, worker));
    // Oldest first; unreadable ones (no creation time to trust) last. Plain code-unit order: ISO times
    // and ids are ASCII, and localeCompare (ICU) was a tenth of listing 1,000 jobs.
    const key = (e: JobEntry) => (e.ok ? e.job.createdAt : '~');
    return entries.filter((e): e is JobEntry => e !== undefined).sort((a, b) => compareText(key(a), key(b)) || compareText(a.id, b.id));
  }

  private async listEntry(id: string): Promise<JobEntry | undefined> {
    const loaded = await this.load(id);
    if (loaded.kind === 'ok') return { id, ok: true, job: await this.reconciled(loaded.job) };
    if (loaded.kind === 'unreadable') return { id, ok: false, reason: loaded.reason };
    // No record: a create in progress (skip it) or one that died half-way (show it).
    try {
      const age = Date.now() - (await fs.promises.stat(this.layout.jobDir(id))).mtimeMs;
      return age < CREATE_GRACE_MS ? undefined : { id, ok: false, reason: 'it has no record (its creation was interrupted)' };
    } catch {
      return undefined;
    }
  }

  private async load(id: string): Promise<Loaded> {
    return loadRecord(id, this.layout.recordFile(id));
  }

  /** A reader that finds the owner gone fixes the record at once (under the lock, re-checked there: exactly once). */
  private async reconciled(job: JobRecord): Promise<JobRecord> {
    if (!judgeOwnership(job, livenessOf)) return job;
    try {
      return await this.mutate(job.id, async (current) => {
        const verdict = judgeOwnership(current, livenessOf);
        if (!verdict) return undefined;
        const next = applyTransition(current, verdict.to, { detail: verdict.detail });
        return { next, timeline: [{ type: verdict.type, from: current.lifecycle.state, to: verdict.to, message: verdict.detail }] };
      });
    } catch (err) {
      this.log(`could not reconcile agent ${job.id}: ${describeError(err)}`);
      return job;
    }
  }

  // ---- writing ------------------------------------------------------------

  async update(
    id: string,
    fn: (job: JobRecord) => JobRecord | void | Promise<JobRecord | void>,
    opts: UpdateOptions = {},
  ): Promise<JobRecord> {
    assertJobId(id);
    return this.mutate(id, async (current) => {
      checkFence(current, opts.fence);
      const draft = structuredClone(current);
      const result = (await fn(draft)) ?? draft;
      if (result.id !== current.id || result.schemaVersion !== current.schemaVersion) {
        throw failure(`An update of agent ${id} tried to change its id or schema version.`, 'INVALID_UPDATE');
      }
      if (result.lifecycle.generation !== current.lifecycle.generation) {
        throw failure(`An update of agent ${id} tried to change its generation; use beginGeneration.`, 'INVALID_UPDATE');
      }
      if (JSON.stringify(result.execution) !== JSON.stringify(current.execution)) {
        throw failure(`An update of agent ${id} tried to change its owner; use claimExecution.`, 'INVALID_UPDATE');
      }
      const from = current.lifecycle.state;
      const to = result.lifecycle.state;
      if (from === to) return { next: result };
      // A state change inside update still goes through the one transition table.
      assertLegalTransition(id, from, to);
      const next = applyTransition({ ...result, lifecycle: { ...result.lifecycle, state: from } }, to);
      return { next, timeline: [{ type: 'transition', from, to, message: next.lifecycle.detail ?? undefined }] };
    });
  }

  async transition(
    id: string,
    to: LifecycleState,
    patch: Partial<Lifecycle> & { detail?: string | null } = {},
    opts: TransitionOptions = {},
  ): Promise<JobRecord> {
    assertJobId(id);
    const { state: _state, generation: _generation, ...lifecyclePatch } = patch;
    return this.mutate(id, async (current) => {
      checkFence(current, opts.fence);
      const from = current.lifecycle.state;
      if (opts.expectFrom && !opts.expectFrom.includes(from)) {
        throw failure(`Agent ${id} is ${from}, not ${opts.expectFrom.join(' or ')}.`, 'UNEXPECTED_STATE');
      }
      const next = applyTransition(current, to, lifecyclePatch as LifecyclePatch);
      return { next, timeline: [{ type: 'transition', from, to, message: next.lifecycle.detail ?? undefined }] };
    });
  }

  /**
   * Retry: a new execution of an ended job. Generation + 1, state `queued`, exit
   * information cleared. `automatic` restarts count toward `recoveries`; a
   * person's retry resets it.
   */
  async beginGeneration(id: string, opts: { automatic?: boolean } = {}): Promise<JobRecord> {
    assertJobId(id);
    return this.mutate(id, async (current) => {
      const next = applyNewGeneration(current);
      next.recoveries = opts.automatic ? current.recoveries + 1 : 0;
      return {
        next,
        timeline: [{ type: 'retry', from: current.lifecycle.state, to: 'queued', message: `generation ${next.lifecycle.generation}` }],
      };
    });
  }

  /**
   * Called by the spawner right after spawning a worker: records its identity as
   * `launch` (the registration grace until the worker claims) and moves a queued
   * job to `starting`. A worker already gone by now fails the job at once.
   */
  async recordLaunch(id: string, opts: { workerPid: number; generation: number }): Promise<JobRecord> {
    assertJobId(id);
    const identity = identityOf(opts.workerPid);
    return this.mutate(id, async (current) => {
      const { state, generation } = current.lifecycle;
      if (generation !== opts.generation) {
        throw failure(`Agent ${id} is at generation ${generation}, not ${opts.generation}; this launch is stale.`, 'FENCED');
      }
      if (state !== 'queued' && state !== 'starting') {
        throw failure(`Agent ${id} is ${state}; only a queued or starting agent can be launched.`, 'ILLEGAL_TRANSITION');
      }
      const timeline: Mutation['timeline'] = [{ type: 'launched', message: `worker ${opts.workerPid}` }];
      let next: JobRecord = current;
      if (state === 'queued') {
        next = applyTransition(next, 'starting');
        timeline.push({ type: 'transition', from: 'queued', to: 'starting' });
      }
      if (current.execution) return { next, timeline }; // it claimed already: the claim supersedes the launch
      if (!identity) {
        next = applyTransition(next, 'failed', { detail: LAUNCH_FAILED_DETAIL });
        timeline.push({ type: 'launch-failed', from: 'starting', to: 'failed', message: LAUNCH_FAILED_DETAIL });
        return { next, timeline };
      }
      next = {
        ...next,
        launch: { workerPid: identity.pid, startTime: identity.startTime, bootId: identity.bootId, generation, launchedAt: new Date().toISOString() },
        lifecycle: { ...next.lifecycle, workerPid: identity.pid },
      };
      return { next, timeline };
    });
  }

  /**
   * Called by the worker: takes the long-held execution lock and records itself
   * as the owner. A queued job moves to `starting`. Refused for a stale
   * generation, an ended job, or a job whose owner is alive.
   */
  async claimExecution(id: string, opts: ClaimOptions): Promise<ExecutionClaim> {
    assertJobId(id);
    const me = identityOf(process.pid);
    if (!me) throw failure('Cannot read this process\'s identity from /proc.');
    const ownerToken = randomBytes(24).toString('hex');
    const claim = new HeldExecution({ ownerToken, generation: opts.generation });
    const lockPath = this.layout.executionLock(id);
    await this.mutate(id, async (current) => {
      const { state, generation } = current.lifecycle;
      if (generation !== opts.generation) {
        throw failure(`Agent ${id} is at generation ${generation}, not ${opts.generation}; this worker is stale.`, 'FENCED');
      }
      if (state !== 'queued' && state !== 'starting') {
        throw failure(`Agent ${id} is ${state}; only a queued or starting agent can be claimed.`, 'ILLEGAL_TRANSITION');
      }
      if (current.execution && livenessOf(current.execution) === 'alive') {
        throw failure(`Agent ${id} is already run by worker ${current.execution.pid}.`, 'ALREADY_OWNED');
      }
      const releaseLock = await takeExecutionLock(lockPath, claim, this.log);
      claim.attach(() =>
        releaseExecutionLock({ recordLock: this.layout.recordLock(id), ownerFile: this.layout.executionOwner(id), what: `agent ${id}` }, this.lockOptions, ownerToken, releaseLock),
      );
      fs.writeFileSync(this.layout.executionOwner(id), ownerToken, { mode: FILE_MODE });
      let next: JobRecord = {
        ...current,
        launch: null,
        execution: {
          ownerToken,
          generation,
          pid: me.pid,
          startTime: me.startTime,
          bootId: me.bootId,
          socketPath: opts.socketPath,
          socketToken: opts.socketToken,
          claimedAt: new Date().toISOString(),
        },
        lifecycle: { ...current.lifecycle, workerPid: me.pid },
      };
      const timeline: Mutation['timeline'] = [{ type: 'claimed', message: `worker ${me.pid}` }];
      if (state === 'queued') {
        next = applyTransition(next, 'starting');
        timeline.push({ type: 'transition', from: 'queued', to: 'starting' });
      }
      return { next, timeline };
    }).catch(async (err) => {
      await claim.release();
      throw err;
    });
    return claim;
  }

  /**
   * Ends an execution whose worker does not answer (`stop --force` of a frozen or hung worker) on
   * behalf of that worker. `endWorker` kills it while this job's record lock is held, so no reader
   * can judge the job `orphaned` in between; the write is fenced by the worker the caller saw (its
   * owner token, or its launch identity before it claimed, and the generation) and refused while
   * that worker still runs. The job goes through `cancelling` to `cancelled`.
   */
  async endForUnresponsiveWorker(
    id: string,
    expected: UnresponsiveWorker,
    endWorker: () => Promise<void>,
    detail: string,
  ): Promise<JobRecord> {
    assertJobId(id);
    return this.mutate(id, async (current) => {
      const { state, generation } = current.lifecycle;
      const owner = current.execution;
      const sameWorker = owner
        ? owner.ownerToken === expected.ownerToken && owner.pid === expected.pid && owner.startTime === expected.startTime
        : expected.ownerToken === null && current.launch?.workerPid === expected.pid && current.launch.startTime === expected.startTime;
      if (generation !== expected.generation || isTerminalState(state) || !sameWorker) {
        throw failure(`Agent ${id} changed while it was being stopped (now generation ${generation}, ${state}); nothing was recorded.`, 'FENCED');
      }
      await endWorker();
      if (livenessOf({ pid: expected.pid, startTime: expected.startTime, bootId: owner?.bootId ?? current.launch!.bootId }) === 'alive') {
        throw failure(`The worker ${expected.pid} of agent ${id} is still running; nothing was recorded.`, 'STILL_RUNNING');
      }
      const timeline: Mutation['timeline'] = [{ type: 'stop-direct', message: detail }];
      let next = current;
      if (state !== 'cancelling') {
        next = applyTransition(next, 'cancelling', { detail });
        timeline.push({ type: 'transition', from: state, to: 'cancelling', message: detail });
      }
      next = applyTransition(next, 'cancelled', { detail });
      timeline.push({ type: 'transition', from: 'cancelling', to: 'cancelled', message: detail });
      return { next, timeline };
    });
  }

  async appendTimeline(id: string, entry: Omit<TimelineEntry, 'at'> & { at?: string }): Promise<void> {
    assertJobId(id);
    if (!fs.existsSync(this.layout.jobDir(id))) throw failure(`No agent ${id} exists.`, 'NOT_FOUND');
    const parsed = TimelineEntrySchema.safeParse({ ...entry, at: entry.at ?? new Date().toISOString() });
    if (!parsed.success) throw usageError(`The timeline entry is invalid: ${describeIssues(parsed.error.issues)}.`, 'INVALID_ENTRY');
    const job = await this.load(id);
    const redact = this.messageRedactor(job.kind === 'ok' ? job.job : undefined);
    appendTimelineLine(this.layout.timelineFile(id), redactEntry(parsed.data, redact));
  }

  async readTimeline(id: string): Promise<TimelineEntry[]> {
    return readTimelineFile(this.layout.timelineFile(id));
  }

  openOutput(id: string): OutputLog {
    return new SegmentedOutputLog(this.layout.outputDir(id), this.outputCapBytes, this.redactor, (err) =>
      this.log(`output of agent ${id}: ${describeError(err)}`),
    );
  }

  async readOutput(id: string): Promise<Buffer> {
    return readSegments(this.layout.outputDir(id));
  }

  watch(opts: WatchOptions = {}): JobWatcher {
    this.ensureChangesDir();
    return new StoreWatcher({ changesDir: this.layout.changesDir, list: () => this.list(), log: this.log }, opts);
  }

  /** Removes temp files left by crashed writers in every job (each under its lock). Returns how many. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (const entry of await this.list()) {
      removed += await withLock(this.layout.recordLock(entry.id), `agent ${entry.id}`, this.lockOptions, async () =>
        sweepTempFiles(this.layout.jobDir(entry.id)),
      );
    }
    return removed;
  }

  // ---- the one write path -------------------------------------------------

  /**
   * Locked read-modify-write: load (must be readable), let `fn` decide, validate
   * and redact the result, write it durably while the lock provably holds, then
   * append the timeline and signal watchers. `fn` returning undefined writes nothing.
   */
  private async mutate(id: string, fn: (current: JobRecord) => Promise<Mutation | undefined>): Promise<JobRecord> {
    const dir = this.layout.jobDir(id);
    if (!fs.existsSync(dir)) throw failure(`No agent ${id} exists.`, 'NOT_FOUND');
    return withLock(this.layout.recordLock(id), `agent ${id}`, this.lockOptions, async (guard: LockGuard) => {
      sweepTempFiles(dir);
      const loaded = await this.load(id);
      if (loaded.kind === 'missing') throw failure(`No agent ${id} exists.`, 'NOT_FOUND');
      if (loaded.kind === 'unreadable') throw failure(`Agent ${id} is unreadable: ${loaded.reason}.`, 'UNREADABLE');
      const mutation = await fn(loaded.job);
      if (!mutation) return loaded.job;
      const redact = this.messageRedactor(mutation.next);
      const next = this.validated(id, redactRecord(mutation.next, redact));
      const target = this.layout.recordFile(id);
      const temp = await writeTemp(target, recordText(next));
      try {
        guard.assertHeld();
        commitTemp(temp, target);
      } catch (err) {
        fs.rmSync(temp, { force: true });
        throw err;
      }
      const at = new Date().toISOString();
      for (const entry of mutation.timeline ?? []) {
        try {
          appendTimelineLine(this.layout.timelineFile(id), redactEntry({ ...entry, at, generation: next.lifecycle.generation }, redact));
        } catch (err) {
          this.log(`timeline of agent ${id}: ${describeError(err)}`);
        }
      }
      this.touchChange(id);
      return next;
    });
  }

  private validated(id: string, job: JobRecord): JobRecord {
    const parsed = JobRecordSchema.safeParse(job);
    if (!parsed.success) throw failure(`The change to agent ${id} is invalid: ${describeIssues(parsed.error.issues)}.`, 'INVALID_UPDATE');
    return parsed.data;
  }

  /**
   * How text that Paddock did not write (errors, holders' command lines,
   * details, timeline messages) is redacted on its way into the store: the
   * configured secrets, the job's secret variables, token shapes, and
   * credential-named options and variables in command lines.
   */
  private messageRedactor(job: JobRecord | undefined): (text: string) => string {
    const r = job ? this.redactor.withEnv(job.settings.secretEnvNames, this.secretEnv) : this.redactor;
    return (text) => redactCredentialArguments(r.redact(text));
  }

  private ensureChangesDir(): void {
    if (this.changesReady) return;
    ensureDir(this.layout.changesDir);
    this.changesReady = true;
  }

  /** Best effort: a missed touch is caught by the watcher's periodic reconcile. */
  private touchChange(id: string): void {
    try {
      this.ensureChangesDir();
      fs.writeFileSync(this.layout.changeFile(id), `${process.pid}:${++this.changeCounter}\n`, { mode: FILE_MODE });
    } catch (err) {
      this.log(`change notification for agent ${id}: ${describeError(err)}`);
    }
  }
}

/** The record's strings that come from outside Paddock, redacted: every record write goes through here. */
function redactRecord(job: JobRecord, redact: (text: string) => string): JobRecord {
  const nullable = (text: string | null, max: number): string | null => (text === null ? null : capped(redact(text), max));
  return {
    ...job,
    lifecycle: { ...job.lifecycle, detail: nullable(job.lifecycle.detail, MAX_MESSAGE) },
    cleanup: job.cleanup && {
      ...job.cleanup,
      lastError: nullable(job.cleanup.lastError, MAX_MESSAGE),
      holders: job.cleanup.holders.map((h) => ({ ...h, command: capped(redact(h.command), MAX_SHORT_TEXT) })),
      branchOutcome: nullable(job.cleanup.branchOutcome, MAX_SHORT_TEXT),
    },
  };
}

function redactEntry(entry: TimelineEntry, redact: (text: string) => string): TimelineEntry {
  return entry.message === undefined ? entry : { ...entry, message: capped(redact(entry.message), MAX_MESSAGE) };
}

/** The schema's limits for details, errors and messages, and for holders' commands and the branch outcome. */
const MAX_MESSAGE = 2000;
const MAX_SHORT_TEXT = 500;

/** `[REDACTED]` can be longer than what it replaced: the result must still fit the schema. */
function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function checkFence(job: JobRecord, fence: Fence | undefined): void {
  if (!fence) return;
  const owner = job.execution;
  if (!owner || owner.ownerToken !== fence.ownerToken || owner.generation !== fence.generation || job.lifecycle.generation !== fence.generation) {
    throw failure(`Agent ${job.id} is no longer owned by this worker (generation ${fence.generation}); the write was refused.`, 'FENCED');
  }
}
