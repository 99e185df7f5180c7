/**
 * The one way Paddock touches job state on disk. Several processes (windows,
 * workers, the CLI) use one store at once: every read-modify-write runs under the
 * job's short lock, records are replaced durably and atomically, workers' writes
 * are fenced by (owner token, generation), and every reader reconciles a job
 * whose owner is gone before returning it. See docs/store.md.
 *
 * This class is the store's door; the work is in its parts: creating
 * (jobCreation), reading (jobReader), the one write path (recordWriter),
 * ownership (executionWrites), redaction (messageRedaction) and change
 * notification (changeSignal).
 */
import * as fs from 'node:fs';
import { describeError, failure, usageError } from '../common/errors';
import { ChangeSignal } from './changeSignal';
import { ExecutionClaim } from './executionClaim';
import { ClaimOptions, claimExecution, endForUnresponsiveWorker, ExecutionParts, UnresponsiveWorker } from './executionWrites';
import { createJob } from './jobCreation';
import { JobEntry, JobReader } from './jobReader';
import { applyNewGeneration, applyTransition, assertLegalTransition, LifecyclePatch } from './lifecycle';
import { lifecycleDetail } from './leftoverWords';
import { DEFAULT_LOCK_OPTIONS, LockOptions } from './locks';
import { MessageRedaction, redactEntry } from './messageRedaction';
import { NewJob } from './newJob';
import { DEFAULT_OUTPUT_CAP, OutputLog, SegmentedOutputLog } from './outputLog';
import { OUTPUT_START, readOutputFrom, type OutputPosition, type OutputRead } from './outputReader';
import { assertJobId, defaultHome, StoreLayout } from './paths';
import { PolicyFile } from './policy';
import { checkFence, RecordWriter } from './recordWriter';
import { Redactor } from './redactor';
import { JobRecord, Leftover, LeftoversEnder, LeftoversFate, Lifecycle, LifecycleState, TimelineEntry, Usage } from './schema';
import { timelineEntryOf } from './timelineCheck';
import { appendTimelineLine, readTimelineFile } from './timeline';
import { JobWatcher, StoreWatcher, WatchOptions } from './watcher';
import type { Fence } from './executionClaim';

export type { JobEntry, NewJob, ClaimOptions, UnresponsiveWorker };

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
  /**
   * `list` reads the records synchronously: faster, for a process with no event loop to keep free
   * (the CLI). Default off: a window's store (its model, passes and operations) must not block.
   */
  blockingReads?: boolean;
}

export interface UpdateOptions {
  fence?: Fence;
}

export interface TransitionOptions extends UpdateOptions {
  /** Refuse (failure, code UNEXPECTED_STATE) unless the job is in one of these states. */
  expectFrom?: LifecycleState[];
  /** Refuse (UNEXPECTED_STATE) once a worker has claimed, or unless the job is at, this generation: a launch's undoing without its worker. */
  expectUnclaimed?: number;
  /** What the ended agent left running, recorded with its terminal state (while its worker ends them, or kept: endLeftoversOnExit off). */
  leftovers?: Leftover[];
  /** The worker ending those leftovers (leftoversEnder on the record) while it does. */
  leftoversEnder?: LeftoversEnder;
  /** How many, for the detail's words (leftoverWords.ts). */
  leftoversFate?: LeftoversFate;
}

export class JobStore {
  readonly home: string;
  /** The store-wide policy (capacity, stop grace, what cleanup may drop), shared by every process. */
  readonly policy: PolicyFile;
  private readonly layout: StoreLayout;
  private readonly outputCapBytes: number;
  private readonly redactor: Redactor;
  private readonly redaction: MessageRedaction;
  private readonly log: (msg: string) => void;
  private readonly changes: ChangeSignal;
  private readonly writer: RecordWriter;
  private readonly reader: JobReader;
  /** This store's process has no event loop to keep free (JobStoreOptions.blockingReads): its other file work may block too. */
  readonly blockingReads: boolean;
  private readonly execution: ExecutionParts;
  private readonly opts: JobStoreOptions;

  constructor(opts: JobStoreOptions) {
    this.opts = opts;
    this.home = opts.home;
    this.layout = new StoreLayout(opts.home);
    this.outputCapBytes = opts.outputCapBytes ?? DEFAULT_OUTPUT_CAP;
    if (!(this.outputCapBytes >= 1024)) throw usageError('The output cap must be at least 1 KiB.');
    this.redactor = opts.redactor ?? new Redactor();
    this.redaction = new MessageRedaction(this.redactor, opts.secretEnv ?? process.env);
    this.log = opts.log ?? (() => undefined);
    const lockOptions = { ...DEFAULT_LOCK_OPTIONS, ...opts.lock };
    this.policy = new PolicyFile(opts.home, this.log);
    this.changes = new ChangeSignal(this.layout, this.log);
    this.writer = new RecordWriter({ layout: this.layout, lockOptions, redaction: this.redaction, changes: this.changes, log: this.log });
    this.blockingReads = opts.blockingReads ?? false;
    this.reader = new JobReader(this.layout, this.writer, this.log, this.blockingReads);
    this.execution = { layout: this.layout, writer: this.writer, lockOptions, log: this.log };
  }

  static defaultHome(env?: NodeJS.ProcessEnv): string {
    return defaultHome(env);
  }

  jobDir(id: string): string {
    return this.layout.jobDir(id);
  }

  /** The folder of the agent's output log segments. */
  outputDir(id: string): string {
    return this.layout.outputDir(id);
  }

  patchPath(id: string): string {
    return this.layout.patchPath(id);
  }

  /** `beforeRecord`: see `createJob`. */
  create(init: NewJob, beforeRecord?: (id: string) => Promise<void>): Promise<JobRecord> {
    return createJob(this.layout, this.changes, init, beforeRecord);
  }

  // ---- reading ------------------------------------------------------------

  read(id: string): Promise<JobRecord> {
    return this.reader.read(id);
  }

  /**
   * This store, but its record writes do not wait for the record lock: for a stop on a store proven
   * unwritable (bug 141), whose every read would otherwise wait the lock's 20 s to record a gone worker.
   */
  withoutLockWait(): JobStore {
    return new JobStore({ ...this.opts, lock: { ...this.opts.lock, waitMs: 0 } });
  }

  /**
   * The record as it is stored, not reconciled (a reader's unrecorded verdict drops its execution), read
   * without blocking the event loop: a window's every operation checks its id so first (bug 141).
   */
  readStored(id: string): Promise<JobRecord> {
    return this.reader.stored(id);
  }

  tryRead(id: string): Promise<JobEntry> {
    return this.reader.tryRead(id);
  }

  /** Every job, unreadable ones included (ok: false with the reason), oldest first; dead owners reconciled. */
  list(): Promise<JobEntry[]> {
    return this.reader.list();
  }

  // ---- writing ------------------------------------------------------------

  async update(
    id: string,
    fn: (job: JobRecord) => JobRecord | void | Promise<JobRecord | void>,
    opts: UpdateOptions = {},
  ): Promise<JobRecord> {
    assertJobId(id);
    return this.writer.mutate(id, async (current) => {
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
      return { next, timeline: [{ type: 'transition', from, to, message: lifecycleDetail(next) ?? undefined }] };
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
    return this.writer.mutate(id, async (current) => {
      checkFence(current, opts.fence);
      const from = current.lifecycle.state;
      if (opts.expectFrom && !opts.expectFrom.includes(from)) {
        throw failure(`Agent ${id} is ${from}, not ${opts.expectFrom.join(' or ')}.`, 'UNEXPECTED_STATE');
      }
      if (opts.expectUnclaimed !== undefined && (current.execution !== null || current.lifecycle.generation !== opts.expectUnclaimed)) {
        throw failure(`Agent ${id}'s worker has claimed it meanwhile.`, 'UNEXPECTED_STATE');
      }
      const moved = applyTransition(current, to, lifecyclePatch as LifecyclePatch);
      const listed = opts.leftovers ? { leftovers: opts.leftovers, ...(opts.leftoversFate ? { leftoversFate: { ...opts.leftoversFate, generation: moved.lifecycle.generation } } : {}), ...(opts.leftoversEnder ? { leftoversEnder: opts.leftoversEnder } : {}) } : {};
      const next = { ...moved, ...listed };
      return { next, timeline: [{ type: 'transition', from, to, message: lifecycleDetail(next) ?? undefined }] };
    });
  }

  /**
   * Retry: a new execution of an ended job. Generation + 1, state `queued`, exit
   * information cleared. `automatic` restarts count toward `recoveries`; a
   * person's retry resets it.
   */
  async beginGeneration(id: string, opts: { automatic?: boolean } = {}): Promise<JobRecord> {
    assertJobId(id);
    return this.writer.mutate(id, async (current) => {
      const next = applyNewGeneration(current);
      next.recoveries = opts.automatic ? current.recoveries + 1 : 0;
      return {
        next,
        timeline: [{ type: 'retry', from: current.lifecycle.state, to: 'queued', message: `generation ${next.lifecycle.generation}` }],
      };
    });
  }

  /**
   * Records sampled figures (issue 13) under the job's lock, through the one
   * write path, so it cannot undo a worker's write made meanwhile. Writes
   * nothing when `changed(recorded, usage)` says the change is too small.
   */
  async recordUsage(id: string, usage: Usage, changed: (recorded: Usage | null | undefined, usage: Usage) => boolean): Promise<JobRecord> {
    assertJobId(id);
    return this.writer.mutate(id, async (current) => (changed(current.usage, usage) ? { next: { ...current, usage } } : undefined));
  }

  /** Called by the worker: see executionWrites.claimExecution. */
  claimExecution(id: string, opts: ClaimOptions): Promise<ExecutionClaim> {
    assertJobId(id);
    return claimExecution(this.execution, id, opts);
  }

  /** `stop --force` of a worker that does not answer: see executionWrites.endForUnresponsiveWorker. */
  endForUnresponsiveWorker(id: string, expected: UnresponsiveWorker, endWorker: () => Promise<void>, detail: string): Promise<JobRecord> {
    assertJobId(id);
    return endForUnresponsiveWorker(this.writer, id, expected, endWorker, detail);
  }

  // ---- timeline and output ------------------------------------------------

  async appendTimeline(id: string, entry: Omit<TimelineEntry, 'at'> & { at?: string }): Promise<void> {
    assertJobId(id);
    if (!fs.existsSync(this.layout.jobDir(id))) throw failure(`No agent ${id} exists.`, 'NOT_FOUND');
    const job = this.writer.load(id);
    const redact = this.redaction.forJob(job.kind === 'ok' ? job.job : undefined);
    const stamped = { ...entry, at: entry.at ?? new Date().toISOString() };
    // Redacted, then cut to the schema's limit, then checked: a message cut first could cut a secret past recognition.
    const checked = timelineEntryOf(typeof stamped.message === 'string' ? redactEntry(stamped as TimelineEntry, redact) : stamped);
    if (!checked.ok) throw usageError(`The timeline entry is invalid: ${checked.reason}.`, 'INVALID_ENTRY');
    appendTimelineLine(this.layout.timelineFile(id), checked.entry);
  }

  async readTimeline(id: string): Promise<TimelineEntry[]> {
    return readTimelineFile(this.layout.timelineFile(id));
  }

  /** The agent's log; `redactor`: the secrets of the command writing to it, when this store's are not those (a cleanup's teardown). */
  openOutput(id: string, redactor: Redactor = this.redactor): OutputLog {
    return new SegmentedOutputLog(this.layout.outputDir(id), this.outputCapBytes, redactor, (err) =>
      this.log(`output of agent ${id}: ${describeError(err)}`),
    );
  }

  /** The agent's whole recorded output (what the log keeps). */
  async readOutput(id: string): Promise<Buffer> {
    return (await readOutputFrom(this.layout.outputDir(id), OUTPUT_START)).data;
  }

  /** The output the agent's log gained after `from` (from OUTPUT_START: all of it), and where to read on. */
  readOutputFrom(id: string, from: OutputPosition): Promise<OutputRead> {
    return readOutputFrom(this.layout.outputDir(id), from);
  }

  // ---- change notification ------------------------------------------------

  /**
   * Tells every watcher (windows, coordinators) to look at agent `id` again though its record is
   * unchanged: something it depends on changed (`paddock allow` trusted its repository's commands).
   */
  signalChange(id: string): void {
    this.changes.touch(id);
  }

  watch(opts: WatchOptions = {}): JobWatcher {
    const changesDir = this.changes.ensureDir();
    return new StoreWatcher({ changesDir, list: () => this.list(), log: this.log }, opts);
  }
}
