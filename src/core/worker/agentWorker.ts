/**
 * One agent's worker: claims the job, serves the control socket, runs the
 * agent in a PTY, mirrors its screen, records its output and lifecycle, and
 * stops it on request. Record writes go through ExecutionRecord (one fenced queue).
 * Its opening (the claim) is executionOpening.ts, its screen agentScreen.ts, its
 * input agentInput.ts, its setup command setupPhase.ts, a stop executionStop.ts
 * and its end executionEnd.ts: this class wires them and runs the agent.
 */
import { existsSync } from 'node:fs';
import { Disposable, toDisposable } from '../common/lifecycle';
import type { Event } from '../common/event';
import { describeError } from '../common/errors';
import type { JobRecord, JobStore, LifecycleState, OutputLog } from '../store';
import { checkSocketPath, ensureRuntimeDir, runtimeDirFor } from '../protocol/runtimeDir';
import { ControlServer } from './controlServer';
import type { ScreenSnapshot } from './mirror';
import { buildAgentEnv, endDetail, exitInfoOf, loadNodePty, nudgeForegroundGroup, Pty, ptyMasterFd, type PtyModule, spawnAgent } from './ptyHost';
import { AgentInput } from './agentInput';
import { putLauncherOnPath } from './launcher';
import type { AgentSession, ExitInfo, StopOutcome } from './session';
import { stopAgentProcesses } from './stopAgent';
import { exitScan, listedAtExit, settledFate, settleLeftovers } from './leftovers';
import { LeftScope } from './leftScope';
import { leftoversStillRunning } from '../store/leftoverCheck';
import { WaitingDetector, waitingDetectorFor, waitingPatternOf } from './waiting';
import { agentStopped } from '../store/suspension';
import type { ExecutionRecord } from './executionRecord';
import { SetupPhase } from './setupPhase';
import { openExecution } from './executionOpening';
import { ExecutionEnd } from './executionEnd';
import { stopExecution } from './executionStop';
import { AgentScreen } from './agentScreen';

export interface AgentWorkerOptions {
  home: string;
  jobId: string;
  generation: number;
  nodePtyPath?: string;
  env: NodeJS.ProcessEnv;
  log: (message: string) => void;
  /** How long the worker may stay after the agent ended for clients still connected or taking answers (executionEnd.ts). */
  lingerMs?: number;
}

const DEFAULT_SIZE = { cols: 80, rows: 24 };

export class AgentWorker extends Disposable implements AgentSession {
  private store!: JobStore;
  private job!: JobRecord;
  private output!: OutputLog;
  private server!: ControlServer;
  private screen!: AgentScreen;
  private waiting: WaitingDetector | undefined;
  private pty: Pty | undefined;
  /** Everything typed into the agent (viewers, sends, the typed prompt, the mirror's replies). */
  private readonly agentInput: AgentInput;
  readonly onDidDrainInput: Event<void>;
  private readonly id: string;
  /** The worktree's setup command, run before the agent. */
  private setupPhase: SetupPhase | undefined;
  private stoppable = false;

  private exitInfo: ExitInfo | null = null;
  private agentEnded: Promise<ExitInfo>;
  private resolveAgentEnded!: (info: ExitInfo) => void;
  private stopPromise: Promise<StopOutcome> | undefined;
  /** The agent's own end being recorded (it exited before any stop was asked): a stop meanwhile waits for it. */
  private naturalEnd: Promise<StopOutcome> | undefined;
  /** What the agent left running at its own exit, once it has ended by itself. */
  private leftScope: LeftScope | undefined;
  private record!: ExecutionRecord;
  private end!: ExecutionEnd;
  private done!: (code: number) => void;
  readonly finished: Promise<number>;

  constructor(private readonly opts: AgentWorkerOptions) {
    super();
    this.id = opts.jobId;
    this.finished = new Promise((r) => (this.done = r));
    this.agentEnded = new Promise((r) => (this.resolveAgentEnded = r));
    this.agentInput = this._register(
      new AgentInput({
        ended: () => this.exitInfo !== null,
        settingUp: () => this.setupPhase !== undefined,
        noteInput: (data) => {
          this.record.noteActivity();
          this.waiting?.noteInput(data);
        },
        log: (message) => opts.log(message),
        promptNotTyped: (why) => this.promptNotTyped(why),
      }),
    );
    this.onDidDrainInput = this.agentInput.onDidDrain;
  }

  // ---- AgentSession ---------------------------------------------------------

  get state(): LifecycleState {
    return this.record?.state ?? 'starting';
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  get cols(): number {
    return this.screen.mirror.cols;
  }

  get rows(): number {
    return this.screen.mirror.rows;
  }

  snapshot(): Promise<ScreenSnapshot> {
    return this.screen.mirror.snapshotAt();
  }

  get inputBacklogged(): boolean {
    return this.agentInput.isBacklogged;
  }

  input(data: string): void {
    this.agentInput.type(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.pty || this.exitInfo) return;
    if (cols !== this.pty.cols || rows !== this.pty.rows) this.waiting?.noteResize();
    try {
      this.pty.resize(cols, rows);
    } catch (err) {
      this.opts.log(`resize failed: ${describeError(err)}`);
    }
    this.screen.mirror.resize(cols, rows);
    this.server.broadcast({ type: 'size', cols, rows });
    void nudgeForegroundGroup(this.pty.pid);
  }

  send(text: string): Promise<void> {
    return this.agentInput.send(text);
  }

  signal(state: 'waiting' | 'running'): void {
    this.waiting?.signal(state);
  }

  /** A stop can be carried out (the claim is held): from then on, during setup too. */
  get acceptsStop(): boolean {
    return this.stoppable;
  }

  /** SIGTERM (main.ts): a stop, and the worker's exit without waiting on its clients' reading, before or after the agent's end (executionEnd.ts). */
  terminate(): Promise<StopOutcome> {
    this.end?.hurry();
    return this.stop(false);
  }

  stop(force: boolean): Promise<StopOutcome> {
    // The agent ended by itself first: its end is what happened (a stop recorded `cancelled` over an exit 0).
    const ending = this.end?.underWay ?? this.naturalEnd;
    if (ending) {
      if (force && this.naturalEnd) void this.killNow(); // what it left running: KILL now, not after the grace
      return ending;
    }
    if (this.stopPromise) {
      if (force) void this.killNow();
      return this.stopPromise;
    }
    this.stopPromise = this.doStop(force);
    return this.stopPromise;
  }

  // ---- start ------------------------------------------------------------------

  async start(): Promise<void> {
    const { home, jobId, env, log } = this.opts;
    const { store, job, record, claim, redactor, socketPath, controlToken, agentToken } = await openExecution(this.opts, (item) => this._register(item));
    this.store = store;
    this.job = job;
    this.record = record;

    this.server = this._register(new ControlServer({ session: this, controlToken, agentToken, applySize: (c, r) => this.resize(c, r), log }));
    this.output = this.store.openOutput(jobId);
    this._register(toDisposable(() => void this.output.close()));
    this.screen = this._register(new AgentScreen(DEFAULT_SIZE, this.output, this.server));
    this.end = new ExecutionEnd({
      jobDir: this.store.jobDir(jobId),
      record: this.record,
      server: this.server,
      output: this.output,
      mirror: this.screen.mirror,
      claim,
      redactor,
      lingerMs: this.opts.lingerMs,
      log,
      ended: (info) => {
        this.exitInfo = info;
        this.waiting?.dispose();
      },
      done: (code) => this.done(code),
    });
    try {
      ensureRuntimeDir(runtimeDirFor(env));
      checkSocketPath(socketPath);
      await this.server.listen(socketPath);
    } catch (err) {
      await this.failStart(describeError(err));
      return;
    }

    if (!existsSync(this.job.cwd)) {
      await this.failStart(`The agent's directory ${this.job.cwd} does not exist.`);
      return;
    }
    // Before the agent starts, so an early signal or prompt is not missed.
    this.setUpWaiting();
    let nodePty: PtyModule;
    try {
      nodePty = loadNodePty(this.opts.nodePtyPath);
    } catch (err) {
      await this.failStart(describeError(err));
      return;
    }
    const agentEnv = buildAgentEnv(env, this.job, { socketPath, agentToken });
    putLauncherOnPath(agentEnv, this.store.jobDir(jobId), home, env, log);
    this.stoppable = true;
    const setup = this.job.settings.worktree?.setup;
    // Setup prepares the worktree once: a retry runs it again only until it has succeeded.
    if (setup && this.job.setup?.state !== 'done') {
      this.setupPhase = new SetupPhase({
        record: this.record,
        jobId,
        cwd: this.job.cwd,
        size: DEFAULT_SIZE,
        writeScreen: (data) => this.screen.write(data),
        log: this.output,
        fail: (info, detail) => this.finish('failed', info, detail).then(() => undefined, (e) => log(describeError(e))),
        isStopping: () => this.stopPromise !== undefined,
      });
      if (!(await this.setupPhase.run(nodePty, setup, this.job.settings.worktree!.setupTimeoutSeconds, agentEnv))) return;
    }
    if (this.stopPromise) return; // stopped as setup ended: the stop records the end
    try {
      this.pty = spawnAgent({ pty: nodePty, command: this.job.command, cwd: this.job.cwd, env: agentEnv, ...DEFAULT_SIZE, drain: this.screen.drain });
      this.agentInput.open(ptyMasterFd(this.pty));
    } catch (err) {
      this.pty?.kill('SIGKILL');
      await this.failStart(`The agent could not start: ${describeError(err, 300)}.`);
      return;
    }
    const pty = this.pty;
    this._register(pty.onData((d) => this.onOutput(d as unknown as Buffer | string)));
    this._register(pty.onExit((e) => this.onPtyExit(e.exitCode, e.signal ?? 0)));
    // Replies to terminal queries: from the mirror while no real terminal is attached (a viewer's terminal answers itself).
    this._register(
      this.screen.mirror.onDidReply((reply) => {
        if (!this.server.hasWritableViewer) this.agentInput.reply(reply);
      }),
    );

    await this.record
      .transition('running', { pid: pty.pid, workerPid: process.pid, startedAt: new Date().toISOString(), detail: null }, ['starting'])
      .catch(() => undefined); // logged by the record; a stop may already be under way
    // A wait detected while starting could not be recorded yet.
    if (this.waiting?.current) this.record.setWaiting(this.waiting.current);
    // The prompt its argv does not carry: the record holds the one of this generation (the start's, or the retry's that made it).
    const typedPrompt = this.job.settings.typedPrompt;
    if (typedPrompt !== undefined) {
      this.agentInput.typePrompt(typedPrompt, waitingPatternOf(this.job.settings.waitingPattern, () => undefined) !== null);
      this.waiting?.noteScreenChanged(); // the agent may have asked already
    }
  }

  /** The execution ends `failed` before the agent ran (no socket, no directory, no node-pty, no spawn). */
  private async failStart(detail: string): Promise<void> {
    await this.finish('failed', { code: null, signal: null }, detail).catch((e) => this.opts.log(describeError(e)));
  }

  // ---- output -----------------------------------------------------------------

  private onOutput(data: Buffer | string): void {
    const { bytes, drained } = this.screen.fromAgent(data);
    if (drained && this.pty) {
      // The agent's program has exited (the wrapper prints the marker after it): nothing typed reaches it now.
      this.agentInput.close();
      // Everything the agent wrote has been read: let the wrapper shell exit.
      try {
        process.kill(this.pty.pid, 'SIGUSR1');
      } catch {
        // already gone
      }
    }
    if (bytes.length === 0) return;
    this.screen.write(bytes);
    this.record.noteActivity();
    this.waiting?.noteOutput(bytes);
  }

  // ---- waiting ------------------------------------------------------------------

  private setUpWaiting(): void {
    const isSuspended = () => (this.pty ? agentStopped(this.pty.pid, process.pid) : Promise.resolve(false));
    // The prompt this generation types in (from the start: a pattern wait read before the agent asks at its cursor is held for a grace, then raised and the prompt dropped).
    const prompt = this.job.settings.typedPrompt !== undefined;
    const firstAsking = {
      pending: () => prompt && !this.agentInput.promptSettled,
      answer: () => this.agentInput.promptAsked(),
      drop: () => this.agentInput.dropPrompt('the agent waited for you before it asked for it at its cursor'),
    };
    const screen = { readScreen: () => this.screen.text(), readCursorRow: () => this.screen.mirror.cursorRow(), firstAsking };
    this.waiting = this._register(waitingDetectorFor(this.job.settings, screen, this.opts.log, isSuspended));
    this._register(this.screen.mirror.onDidCatchUp(() => this.waiting?.noteScreenChanged()));
    this._register(this.waiting.onDidChange((reason) => this.record.setWaiting(reason)));
  }

  /** The prompt its argv does not carry will not be typed in: the person is told (log, timeline, the record's detail). */
  private promptNotTyped(why: string): void {
    const note = `the prompt was not typed in (${why}); send it yourself if the agent still needs it`;
    this.opts.log(note);
    this.record.timeline('prompt-not-typed', note);
    this.record.setNote(note);
  }

  // ---- exit -------------------------------------------------------------------

  private onPtyExit(code: number, signal: number): void {
    // node-pty reports the exit after it closed the master: input has nowhere to go.
    this.agentInput.close();
    const info = exitInfoOf(code, signal);
    const drained = this.screen.endOfOutput().then(() => this.resolveAgentEnded(info));
    if (this.stopPromise) return; // stopped before it exited: the stop path records `cancelled`
    // Known before the first await: a stop asked while the output drains or the leftovers settle
    // (a second or more) waits for this end, which is the truth, instead of recording `cancelled`.
    this.naturalEnd = drained.then(() => this.endNaturally(info));
    this.naturalEnd.catch((err) => this.opts.log(describeError(err)));
  }

  /**
   * The agent exited by itself: its end is recorded at once. What it left running is listed with that
   * end (the row offers Stop; a cleanup ends them too; a retry waits), then settled — ended, or left
   * to the person — and the detail says how. The record said `running` for the whole settling (a
   * second's grace and up to 5 s more) while nothing of the agent's own program ran.
   */
  private async endNaturally(info: ExitInfo): Promise<StopOutcome> {
    const state = info.code === 0 && !info.signal ? 'completed' : 'failed';
    const sid = this.pty?.pid;
    const found = sid === undefined ? [] : await exitScan(this.id, sid, (note) => (this.opts.log(note), this.record.timeline('leftovers-unknown', note)));
    if (sid === undefined || found === undefined || found.length === 0) return this.finish(state, info, endDetail(info));
    const settings = this.job.settings;
    const scope = (this.leftScope = new LeftScope(found, sid));
    const settle = async () => {
      const left = await settleLeftovers({ scope, settings });
      await this.record.afterEnd((job) => {
        // The detail stays how the agent ended; the words on what it left follow from these (store/leftoverWords.ts).
        job.leftoversFate = settledFate(job, left.fate);
        // Ended: the listing keeps only what still runs (a survivor of SIGKILL); left to the person: what the grace left.
        job.leftovers = left.leftovers ?? leftoversStillRunning(job) ?? job.leftovers;
        if (job.leftoversEnder) job.leftoversEnder = null;
      });
    };
    return this.finish(state, info, endDetail(info), undefined, listedAtExit(found, settings), settle);
  }

  /** Records the terminal state, tells the viewers, keeps the final screen briefly, then ends the worker (executionEnd.ts). */
  private finish(...args: Parameters<ExecutionEnd['finish']>): Promise<StopOutcome> {
    return this.end.finish(...args);
  }

  // ---- stop ---------------------------------------------------------------------

  // Async: whatever goes wrong, even reading what the stop needs, the stop requester gets it as a rejection.
  private async doStop(force: boolean): Promise<StopOutcome> {
    return stopExecution(
      {
        jobId: this.id,
        record: this.record,
        pty: this.pty,
        setupPhase: () => this.setupPhase,
        graceMs: this.job.settings.stopGraceMs,
        agentEnded: this.agentEnded,
        stopWaiting: () => this.waiting?.dispose(),
        finish: (state, info, detail, outcome) => this.finish(state, info, detail, outcome),
      },
      force,
    );
  }

  /** A force stop during a graceful stop's grace: KILL what is left now. */
  private async killNow(): Promise<void> {
    const pty = this.pty;
    // Its end recorded, what it left running is killed where its exit scan found it (leftScope.ts).
    if (this.exitInfo && this.leftScope) {
      await this.leftScope.end(0).catch((err) => this.opts.log(`force stop failed: ${describeError(err)}`));
      return;
    }
    if (!pty || this.exitInfo) return;
    await stopAgentProcesses({ sid: pty.pid, jobId: this.id, graceMs: 0 }).catch((err) => this.opts.log(`force stop failed: ${describeError(err)}`));
  }
}
