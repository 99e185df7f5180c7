/**
 * One agent's worker: claims the job, serves the control socket, runs the
 * agent in a PTY, mirrors its screen, records its output and lifecycle, and
 * stops it on request. Record writes go through ExecutionRecord (one fenced queue).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Disposable, toDisposable } from '../common/lifecycle';
import type { Event } from '../common/event';
import { describeError, failure } from '../common/errors';
import { ExecutionClaim, JobRecord, JobStore, Leftover, LifecycleState, OutputLog, Redactor } from '../store';
import { redactorForCommandEnv } from '../store/secretEnv';
import { checkSocketPath, ensureRuntimeDir, runtimeDirFor, socketFileName } from '../protocol/runtimeDir';
import { ControlServer } from './controlServer';
import { DrainMarker } from './drain';
import { ScreenMirror, ScreenSnapshot } from './mirror';
import { buildAgentEnv, endDetail, exitInfoOf, loadNodePty, nudgeForegroundGroup, outputQuiet, Pty, ptyMasterFd, type PtyModule, spawnAgent } from './ptyHost';
import { AgentInput } from './agentInput';
import { putLauncherOnPath } from './launcher';
import type { AgentSession, ExitInfo, StopOutcome } from './session';
import { stopAgentProcesses, stopDetail } from './stopAgent';
import { settleLeftovers } from './leftovers';
import { WaitingDetector, waitingDetectorFor, waitingPatternOf } from './waiting';
import { agentStopped } from '../store/suspension';
import { ExecutionRecord } from './executionRecord';
import { SetupPhase } from './setupPhase';
import { FINAL_SCREEN_FILE, saveFinalScreen } from './finalScreen';
import { setTimeout as sleep } from 'node:timers/promises';

export interface AgentWorkerOptions {
  home: string;
  jobId: string;
  generation: number;
  nodePtyPath?: string;
  env: NodeJS.ProcessEnv;
  log: (message: string) => void;
  /**
   * How long the worker may stay after the agent ended for connected clients
   * (viewers, a stop requester) to take the exit and the final screen. It ends
   * as soon as none is connected: at once when nobody is.
   */
  lingerMs?: number;
}

const DEFAULT_SIZE = { cols: 80, rows: 24 };

export class AgentWorker extends Disposable implements AgentSession {
  private store!: JobStore;
  /** Removes the values of the job's secret variables (and token shapes) from what this worker persists. */
  private redactor = new Redactor([]);
  private job!: JobRecord;
  private claim!: ExecutionClaim;
  private output!: OutputLog;
  private server!: ControlServer;
  private mirror!: ScreenMirror;
  private waiting: WaitingDetector | undefined;
  private pty: Pty | undefined;
  /** Everything typed into the agent (viewers, sends, the typed prompt, the mirror's replies). */
  private readonly agentInput: AgentInput;
  readonly onDidDrainInput: Event<void>;
  private readonly drain = new DrainMarker();
  private readonly id: string;
  /** The worktree's setup command, run before the agent. */
  private setupPhase: SetupPhase | undefined;
  private stoppable = false;

  private exitInfo: ExitInfo | null = null;
  private agentEnded: Promise<ExitInfo>;
  private resolveAgentEnded!: (info: ExitInfo) => void;
  private lastDataAt = 0;
  private stopPromise: Promise<StopOutcome> | undefined;
  private finishing: Promise<StopOutcome> | undefined;
  private record!: ExecutionRecord;
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
        noteInput: () => {
          this.record.noteActivity();
          this.waiting?.noteInput();
        },
        log: (message) => opts.log(message),
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
    return this.mirror.cols;
  }

  get rows(): number {
    return this.mirror.rows;
  }

  snapshot(): Promise<ScreenSnapshot> {
    return this.mirror.snapshotAt();
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
    this.mirror.resize(cols, rows);
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

  stop(force: boolean): Promise<StopOutcome> {
    if (this.finishing) return this.finishing;
    if (this.stopPromise) {
      if (force) void this.killNow();
      return this.stopPromise;
    }
    this.stopPromise = this.doStop(force);
    return this.stopPromise;
  }

  // ---- start ------------------------------------------------------------------

  async start(): Promise<void> {
    const { home, jobId, generation, env, log } = this.opts;
    const first = await new JobStore({ home, log }).read(jobId);
    if (first.lifecycle.generation !== generation) {
      throw failure(`Agent ${jobId} is at generation ${first.lifecycle.generation}, not ${generation}.`);
    }
    // Values of secret variables are known only here (the spawner passed them in our environment).
    // Declared secrets and every credential-shaped name of the environment the agent really gets.
    this.redactor = redactorForCommandEnv(env, first.settings.secretEnvNames);
    this.store = new JobStore({ home, log, redactor: this.redactor });

    // The path is recorded with the claim and checked after it, so a bad runtime dir ends the job with a clear reason.
    const socketPath = join(runtimeDirFor(env), socketFileName(jobId, generation));
    const controlToken = randomBytes(24).toString('hex');
    const agentToken = randomBytes(24).toString('hex');

    this.claim = this._register(await this.store.claimExecution(jobId, { generation, socketPath, socketToken: controlToken }));
    this._register(this.claim.onDidCompromise((err) => log(`execution lock compromised: ${err.message}; record writes will be refused`)));
    this.job = await this.store.read(jobId);
    this.record = this._register(new ExecutionRecord(this.store, jobId, this.claim.fence, this.job.lifecycle.state, log));

    this.mirror = this._register(new ScreenMirror(DEFAULT_SIZE));
    this.server = this._register(new ControlServer({ session: this, controlToken, agentToken, applySize: (c, r) => this.resize(c, r), log }));
    this.output = this.store.openOutput(jobId);
    this._register(toDisposable(() => void this.output.close()));
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
        writeScreen: (data) => this.writeScreen(data),
        log: this.output,
        fail: (info, detail) => this.finish('failed', info, detail).then(() => undefined, (e) => log(describeError(e))),
        isStopping: () => this.stopPromise !== undefined,
      });
      if (!(await this.setupPhase.run(nodePty, setup, this.job.settings.worktree!.setupTimeoutSeconds, agentEnv))) return;
    }
    if (this.stopPromise) return; // stopped as setup ended: the stop records the end
    try {
      this.pty = spawnAgent({ pty: nodePty, command: this.job.command, cwd: this.job.cwd, env: agentEnv, ...DEFAULT_SIZE, drain: this.drain });
      this.agentInput.open(ptyMasterFd(this.pty));
    } catch (err) {
      this.pty?.kill('SIGKILL');
      await this.failStart(`The agent could not start: ${describeError(err, 300)}.`);
      return;
    }
    const pty = this.pty;
    this._register(pty.onData((d) => this.onOutput(d as unknown as Buffer | string)));
    this._register(pty.onExit((e) => void this.onPtyExit(e.exitCode, e.signal ?? 0)));
    // Replies to terminal queries: from the mirror while no real terminal is attached (a viewer's terminal answers itself).
    this._register(
      this.mirror.onDidReply((reply) => {
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
    if (typedPrompt !== undefined) this.agentInput.typePrompt(typedPrompt, waitingPatternOf(this.job.settings.waitingPattern, () => undefined), () => this.screenText());
  }

  /** The execution ends `failed` before the agent ran (no socket, no directory, no node-pty, no spawn). */
  private async failStart(detail: string): Promise<void> {
    await this.finish('failed', { code: null, signal: null }, detail).catch((e) => this.opts.log(describeError(e)));
  }

  /** The agent's output, setup's and Paddock's own lines alike: to the log, the mirror and the viewers. */
  private writeScreen(data: Buffer | string): void {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.output.append(bytes);
    this.mirror.write(bytes);
    this.server.broadcastOutput(bytes);
  }

  // ---- output -----------------------------------------------------------------

  private onOutput(data: Buffer | string): void {
    this.lastDataAt = Date.now();
    // Raw bytes all the way: the log, the mirror and the viewers' frames take them as they are.
    const { bytes, found } = this.drain.filter(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (found && this.pty) {
      // Everything the agent wrote has been read: let the wrapper shell exit.
      try {
        process.kill(this.pty.pid, 'SIGUSR1');
      } catch {
        // already gone
      }
    }
    if (bytes.length === 0) return;
    this.writeScreen(bytes);
    this.record.noteActivity();
    this.waiting?.noteOutput();
  }

  // ---- waiting ------------------------------------------------------------------

  /** The visible screen as plain text, lines joined by \n. */
  private screenText(): string {
    return this.mirror.visibleLines().join('\n');
  }

  private setUpWaiting(): void {
    const isSuspended = () => (this.pty ? agentStopped(this.pty.pid, process.pid) : Promise.resolve(false));
    this.waiting = this._register(waitingDetectorFor(this.job.settings, () => this.screenText(), this.opts.log, isSuspended));
    this._register(
      this.mirror.onDidCatchUp(() => {
        // Before the detector's look: the wait the typed prompt answers is never recorded.
        this.agentInput.screenChanged(() => this.screenText());
        this.waiting?.noteScreenChanged();
      }),
    );
    this._register(this.waiting.onDidChange((reason) => this.record.setWaiting(reason)));
  }

  // ---- exit -------------------------------------------------------------------

  private async onPtyExit(code: number, signal: number): Promise<void> {
    // node-pty reports the exit after it closed the master: input has nowhere to go.
    this.agentInput.close();
    await outputQuiet(() => this.lastDataAt);
    const tail = this.drain.end();
    if (tail.length > 0) this.writeScreen(tail);
    const info = exitInfoOf(code, signal);
    this.resolveAgentEnded(info);
    if (this.stopPromise) return; // the stop path records `cancelled`
    const ok = info.code === 0 && !info.signal;
    const left = this.pty ? await settleLeftovers({ jobId: this.id, sid: this.pty.pid, settings: this.job.settings }) : { detail: '', leftovers: undefined };
    const detail = endDetail(info) + left.detail;
    const leftovers = left.leftovers;
    await this.finish(ok ? 'completed' : 'failed', info, detail, undefined, leftovers).catch((err) => this.opts.log(describeError(err)));
  }

  /** Records the terminal state, tells the viewers, keeps the final screen briefly, then ends the worker. */
  private finish(state: LifecycleState, info: ExitInfo, detail: string, outcome?: Omit<StopOutcome, 'state'>, leftovers?: Leftover[]): Promise<StopOutcome> {
    this.finishing ??= (async () => {
      this.exitInfo = info;
      this.waiting?.dispose();
      await this.output?.flush().catch((err) => this.opts.log(`output flush failed: ${describeError(err)}`));
      await this.mirror.snapshotAt(); // every byte parsed: the screen is final
      saveFinalScreen(this.mirror, this.redactor, join(this.store.jobDir(this.id), FINAL_SCREEN_FILE), this.opts.log);
      const linger = this.opts.lingerMs ?? 2000;
      try {
        await this.record.transition(state, { exitCode: info.code, signal: info.signal, endedAt: new Date().toISOString(), detail, waitingReason: null }, undefined, leftovers);
      } catch (err) {
        // Not durable: say so to a stop requester; readers will judge the job once this worker is gone.
        this.server.notifyExit({ type: 'exit', code: info.code, signal: info.signal, state: this.record.state });
        this.shutDownWhenUnwatched(linger);
        throw failure(`The agent ended, but its ${state} state could not be recorded: ${describeError(err, 300)}`);
      }
      this.server.notifyExit({ type: 'exit', code: info.code, signal: info.signal, state });
      this.shutDownWhenUnwatched(linger);
      return { state, escalated: outcome?.escalated ?? false, survivors: outcome?.survivors ?? [] };
    })();
    return this.finishing;
  }

  /**
   * Ends the worker once no client is connected, or after `lingerMs` at the latest. A fixed linger
   * kept every worker 2 s after its agent ended, also with nobody to see the final screen: after a
   * cleanup the worker outlived "Cleaned up" by 1–3 s (docs/reliability.md).
   */
  private shutDownWhenUnwatched(lingerMs: number): void {
    this.server.whenUnwatched(lingerMs, () => void this.shutDown());
  }

  private shuttingDown = false;

  private async shutDown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.server.dispose();
    await this.record.settled();
    this.record.freeze();
    await this.output.close().catch(() => undefined);
    await this.claim.release().catch((err) => this.opts.log(`releasing the claim failed: ${describeError(err)}`));
    this.done(0);
  }

  // ---- stop ---------------------------------------------------------------------

  private async doStop(force: boolean): Promise<StopOutcome> {
    const pty = this.pty;
    if (!pty) {
      // starting → cancelled is not a legal step: the record says the stop first.
      if (this.record.state === 'starting') {
        await this.record.transition('cancelling', { detail: force ? 'force stop requested' : 'stop requested' }).catch(() => undefined);
      }
      // Stopped during setup: its processes end first, then the record says so.
      const ended = await this.setupPhase?.end();
      if (ended) return this.finish('cancelled', ended, 'stopped during setup');
      return this.finish('cancelled', { code: null, signal: null }, 'stopped before the agent started');
    }
    this.waiting?.dispose();
    await this.record.transition('cancelling', { detail: force ? 'force stop requested' : 'stop requested', waitingReason: null }).catch(() => undefined);
    const grace = force ? 0 : this.job.settings.stopGraceMs;
    this.record.timeline('stop', `SIGTERM to session ${pty.pid}${force ? ' (force: SIGKILL at once)' : `, SIGKILL after ${grace} ms`}`);
    const { escalated, survivors } = await stopAgentProcesses({
      sid: pty.pid,
      jobId: this.id,
      graceMs: grace,
      onEscalate: (pids) => this.record.timeline('stop-escalated', `grace of ${grace} ms ran out: SIGKILL to ${pids.join(', ')}`),
    });
    const info = await Promise.race([this.agentEnded, sleep(5000).then(() => ({ code: null, signal: 'SIGKILL' }))]);
    const detail = stopDetail({ escalated, survivors, graceMs: grace });
    return this.finish('cancelled', info, detail, { escalated, survivors });
  }

  /** A force stop during a graceful stop's grace: KILL what is left now. */
  private async killNow(): Promise<void> {
    const pty = this.pty;
    if (!pty || this.exitInfo) return;
    await stopAgentProcesses({ sid: pty.pid, jobId: this.id, graceMs: 0 }).catch((err) => this.opts.log(`force stop failed: ${describeError(err)}`));
  }
}
