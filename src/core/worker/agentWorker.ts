/**
 * One agent's worker: claims the job, serves the control socket, runs the
 * agent in a PTY, mirrors its screen, records its output and lifecycle, and
 * stops it on request. Every record write is fenced by the execution claim and
 * goes through one queue, so lifecycle changes land in the order they happen.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { Disposable, disposableInterval, toDisposable } from '../common/lifecycle';
import { describeError, failure } from '../common/errors';
import { commandLineOf, readProcStat, terminateProcessTree } from '../proc';
import { ExecutionClaim, Fence, JobRecord, JobStore, LifecycleState, OutputLog, Redactor } from '../store';
import { checkSocketPath, ensureRuntimeDir, runtimeDirFor, socketFileName } from '../protocol/runtimeDir';
import { ControlServer } from './controlServer';
import { DrainMarker } from './drain';
import { ScreenMirror, ScreenSnapshot } from './mirror';
import { buildAgentEnv, describeExit, loadNodePty, Pty, spawnAgent } from './ptyHost';
import type { AgentSession, ExitInfo, StopOutcome } from './session';
import { WaitingDetector, WaitingReason } from './waiting';

export interface AgentWorkerOptions {
  home: string;
  jobId: string;
  generation: number;
  nodePtyPath?: string;
  env: NodeJS.ProcessEnv;
  log: (message: string) => void;
  /** How long the final screen stays available to connected viewers after the agent ended. */
  lingerMs?: number;
}

export const FINAL_SCREEN_FILE = 'screen.txt';
export const ENV_MARKER = 'PADDOCK_JOB_ID';
const DEFAULT_SIZE = { cols: 80, rows: 24 };
/** After the PTY reports exit, output may still trickle in: the exit is final after this much silence. */
const EXIT_QUIET_MS = 60;
const EXIT_DRAIN_MAX_MS = 2000;
/** Waiting/running flips are written at most this often. */
const STATE_WRITE_INTERVAL_MS = 1000;
const ACTIVITY_WRITE_INTERVAL_MS = 30_000;
/** Pause between typed text and Enter for `send`, so TUIs do not take the Enter as part of a paste. */
const SEND_ENTER_DELAY_MS = 30;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class AgentWorker extends Disposable implements AgentSession {
  private store!: JobStore;
  private job!: JobRecord;
  private claim!: ExecutionClaim;
  private output!: OutputLog;
  private server!: ControlServer;
  private mirror!: ScreenMirror;
  private waiting: WaitingDetector | undefined;
  private pty: Pty | undefined;
  private readonly decoder = new StringDecoder('utf8');
  private readonly drain = new DrainMarker();
  private readonly id: string;

  private lifecycleState: LifecycleState = 'starting';
  private exitInfo: ExitInfo | null = null;
  private agentEnded: Promise<ExitInfo>;
  private resolveAgentEnded!: (info: ExitInfo) => void;
  private lastDataAt = 0;
  private outputBatch = '';
  private outputBatchScheduled = false;
  private lastActivity = new Date();
  private activityWritten = true;
  private stopPromise: Promise<StopOutcome> | undefined;
  private finishing: Promise<StopOutcome> | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private desiredWaiting: WaitingReason | null = null;
  private stateWriteTimer: NodeJS.Timeout | undefined;
  private lastStateWriteAt = 0;
  private done!: (code: number) => void;
  readonly finished: Promise<number>;

  constructor(private readonly opts: AgentWorkerOptions) {
    super();
    this.id = opts.jobId;
    this.finished = new Promise((r) => (this.done = r));
    this.agentEnded = new Promise((r) => (this.resolveAgentEnded = r));
  }

  // ---- AgentSession ---------------------------------------------------------

  get state(): LifecycleState {
    return this.lifecycleState;
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

  input(data: string): void {
    if (!this.pty || this.exitInfo) return;
    this.pty.write(data);
    this.noteActivity();
    this.waiting?.noteInput();
  }

  resize(cols: number, rows: number): void {
    if (!this.pty || this.exitInfo) return;
    try {
      this.pty.resize(cols, rows);
    } catch (err) {
      this.opts.log(`resize failed: ${describeError(err)}`);
    }
    this.mirror.resize(cols, rows);
    this.server.broadcast({ type: 'size', cols, rows });
    // The kernel signals a size change itself; an explicit SIGWINCH also forces a redraw when the size did not change.
    const fg = readProcStat(this.pty.pid)?.tpgid;
    if (fg && fg > 1) {
      try {
        process.kill(-fg, 'SIGWINCH');
      } catch {
        // the group just went away
      }
    }
  }

  async send(text: string): Promise<void> {
    if (!this.pty || this.exitInfo) throw failure('The agent has ended.');
    this.input(text);
    await sleep(SEND_ENTER_DELAY_MS);
    if (this.exitInfo) throw failure('The agent ended before Enter was typed.');
    this.input('\r');
  }

  signal(state: 'waiting' | 'running'): void {
    this.waiting?.signal(state);
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
    this.store = new JobStore({ home, log, redactor: Redactor.fromEnv(first.settings.secretEnvNames, env) });

    // The path is recorded with the claim and checked after it, so a bad runtime dir ends the job with a clear reason.
    const socketPath = join(runtimeDirFor(env), socketFileName(jobId, generation));
    const controlToken = randomBytes(24).toString('hex');
    const agentToken = randomBytes(24).toString('hex');

    this.claim = this._register(await this.store.claimExecution(jobId, { generation, socketPath, socketToken: controlToken }));
    this._register(this.claim.onDidCompromise((err) => log(`execution lock compromised: ${err.message}; record writes will be refused`)));
    this.job = await this.store.read(jobId);
    this.lifecycleState = this.job.lifecycle.state;

    this.mirror = this._register(new ScreenMirror(DEFAULT_SIZE));
    this.server = this._register(
      new ControlServer({
        session: this,
        controlToken,
        agentToken,
        applySize: (c, r) => this.resize(c, r),
        log,
      }),
    );
    this.output = this.store.openOutput(jobId);
    this._register(toDisposable(() => void this.output.close()));
    try {
      ensureRuntimeDir(runtimeDirFor(env));
      checkSocketPath(socketPath);
      await this.server.listen(socketPath);
    } catch (err) {
      await this.finish('failed', { code: null, signal: null }, describeError(err)).catch((e) => log(describeError(e)));
      return;
    }

    if (!existsSync(this.job.cwd)) {
      await this.finish('failed', { code: null, signal: null }, `The agent's directory ${this.job.cwd} does not exist.`).catch((e) => log(describeError(e)));
      return;
    }
    // Before the agent starts, so an early signal or prompt is not missed.
    this.setUpWaiting();
    const nodePty = loadNodePty(this.opts.nodePtyPath);
    const agentEnv = buildAgentEnv(env, { jobId, socketPath, agentToken });
    try {
      this.pty = spawnAgent({ pty: nodePty, command: this.job.command, cwd: this.job.cwd, env: agentEnv, ...DEFAULT_SIZE, drain: this.drain });
    } catch (err) {
      await this.finish('failed', { code: null, signal: null }, `The agent could not start: ${describeError(err, 300)}.`).catch((e) => log(describeError(e)));
      return;
    }
    const pty = this.pty;
    this._register(pty.onData((d) => this.onOutput(d as unknown as Buffer | string)));
    this._register(pty.onExit((e) => void this.onPtyExit(e.exitCode, e.signal ?? 0)));
    // Replies to terminal queries: from the mirror while no real terminal is attached (a viewer's terminal answers itself).
    this._register(
      this.mirror.onDidReply((reply) => {
        if (!this.server.hasWritableViewer && !this.exitInfo) pty.write(reply);
      }),
    );

    await this.write(() =>
      this.store.transition(
        jobId,
        'running',
        { pid: pty.pid, workerPid: process.pid, startedAt: new Date().toISOString(), lastActivityAt: new Date().toISOString(), detail: null },
        { fence: this.fence, expectFrom: ['starting'] },
      ),
    );
    if (this.lifecycleState === 'starting') this.lifecycleState = 'running';
    // A wait detected while starting could not be recorded yet.
    if (this.waiting?.current) this.scheduleWaitingWrite(this.waiting.current);
    this._register(disposableInterval(() => this.writeActivity(), ACTIVITY_WRITE_INTERVAL_MS));
  }

  private get fence(): Fence {
    return this.claim.fence;
  }

  // ---- output -----------------------------------------------------------------

  private onOutput(data: Buffer | string): void {
    this.lastDataAt = Date.now();
    const { text, found } = this.drain.filter(typeof data === 'string' ? data : this.decoder.write(data));
    if (found && this.pty) {
      // Everything the agent wrote has been read: let the wrapper shell exit.
      try {
        process.kill(this.pty.pid, 'SIGUSR1');
      } catch {
        // already gone
      }
    }
    if (!text) return;
    this.appendOutput(text);
    this.mirror.write(text);
    this.server.broadcastOutput(text);
    this.noteActivity();
    this.waiting?.noteOutput();
  }

  /** The store redacts each append: one append per event-loop turn instead of one per 4 KB read. */
  private appendOutput(text: string): void {
    this.outputBatch += text;
    if (this.outputBatchScheduled) return;
    this.outputBatchScheduled = true;
    setImmediate(() => this.flushOutputBatch());
  }

  private flushOutputBatch(): void {
    this.outputBatchScheduled = false;
    if (!this.outputBatch) return;
    const text = this.outputBatch;
    this.outputBatch = '';
    this.output.append(text);
  }

  private noteActivity(): void {
    this.lastActivity = new Date();
    this.activityWritten = false;
  }

  // ---- waiting ------------------------------------------------------------------

  private setUpWaiting(): void {
    const { waitingPattern, idleSeconds } = this.job.settings;
    let pattern: RegExp | null = null;
    if (waitingPattern) {
      try {
        pattern = new RegExp(waitingPattern, 'm');
      } catch (err) {
        this.opts.log(`ignoring the waiting pattern: ${describeError(err)}`);
      }
    }
    this.waiting = this._register(
      new WaitingDetector({
        pattern,
        idleMs: idleSeconds ? idleSeconds * 1000 : null,
        readScreen: () => this.mirror.visibleLines().join('\n'),
      }),
    );
    this._register(this.mirror.onDidCatchUp(() => this.waiting?.noteScreenChanged()));
    this._register(this.waiting.onDidChange((reason) => this.scheduleWaitingWrite(reason)));
    this._register(toDisposable(() => this.stateWriteTimer && clearTimeout(this.stateWriteTimer)));
  }

  /** Coalesces running⇄waiting flips: at most one record write per interval, always ending at the latest state. */
  private scheduleWaitingWrite(reason: WaitingReason | null): void {
    this.desiredWaiting = reason;
    if (this.stateWriteTimer) return;
    const delay = Math.max(0, this.lastStateWriteAt + STATE_WRITE_INTERVAL_MS - Date.now());
    this.stateWriteTimer = setTimeout(() => {
      this.stateWriteTimer = undefined;
      this.lastStateWriteAt = Date.now();
      void this.write(() => this.applyWaiting());
    }, delay);
  }

  private async applyWaiting(): Promise<void> {
    const want = this.desiredWaiting;
    const from = this.lifecycleState;
    if (from !== 'running' && from !== 'waiting') return;
    const to: LifecycleState = want ? 'waiting' : 'running';
    if (to === from) return;
    await this.store.transition(
      this.id,
      to,
      { waitingReason: want, lastActivityAt: this.lastActivity.toISOString(), detail: want ? `waiting (${want})` : null },
      { fence: this.fence, expectFrom: ['running', 'waiting'] },
    );
    this.activityWritten = true;
    this.lifecycleState = to;
  }

  private writeActivity(): void {
    if (this.activityWritten || this.exitInfo || this.stopPromise) return;
    this.activityWritten = true;
    const at = this.lastActivity.toISOString();
    void this.write(() =>
      this.store.update(
        this.id,
        (job) => {
          job.lifecycle.lastActivityAt = at;
        },
        { fence: this.fence },
      ),
    );
  }

  /** Runs record writes one at a time; a failed write is logged, never thrown into the event loop. */
  private write<T>(fn: () => Promise<T>): Promise<T | undefined> {
    return this.writeStrict(fn).catch(() => undefined);
  }

  /** Like write, but the caller learns that the write failed (the queue goes on either way). */
  private writeStrict<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writes.then(fn);
    this.writes = next.catch((err) => this.opts.log(`record write failed: ${describeError(err)}`));
    return next;
  }

  // ---- exit -------------------------------------------------------------------

  private async onPtyExit(code: number, signal: number): Promise<void> {
    // Exit is final only after the data stream went quiet (node-pty can report exit before the last reads).
    const deadline = Date.now() + EXIT_DRAIN_MAX_MS;
    while (Date.now() < deadline && Date.now() - this.lastDataAt < EXIT_QUIET_MS) await sleep(EXIT_QUIET_MS / 2);
    const tail = this.drain.filter(this.decoder.end()).text + this.drain.end();
    if (tail) {
      this.appendOutput(tail);
      this.mirror.write(tail);
      this.server.broadcastOutput(tail);
    }
    const info: ExitInfo = signal ? { code: null, signal: signalNameOf(signal) } : (() => {
      const d = describeExit(code);
      return { code: d.exitCode, signal: d.signal };
    })();
    this.resolveAgentEnded(info);
    if (this.stopPromise) return; // the stop path records `cancelled`
    const ok = info.code === 0 && !info.signal;
    const detail = ok ? 'exit 0' : info.signal ? `killed by ${info.signal}` : `exit ${info.code}`;
    await this.finish(ok ? 'completed' : 'failed', info, detail).catch((err) => this.opts.log(describeError(err)));
  }

  /** Records the terminal state, tells the viewers, keeps the final screen briefly, then ends the worker. */
  private finish(state: LifecycleState, info: ExitInfo, detail: string, outcome?: Omit<StopOutcome, 'state'>): Promise<StopOutcome> {
    this.finishing ??= (async () => {
      this.exitInfo = info;
      this.waiting?.dispose();
      if (this.output) this.flushOutputBatch();
      await this.output?.flush().catch((err) => this.opts.log(`output flush failed: ${describeError(err)}`));
      await this.mirror.snapshotAt(); // every byte parsed: the screen is final
      this.saveFinalScreen();
      const linger = this.opts.lingerMs ?? 2000;
      try {
        await this.writeStrict(() =>
          this.store.transition(
            this.id,
            state,
            { exitCode: info.code, signal: info.signal, endedAt: new Date().toISOString(), detail, waitingReason: null },
            { fence: this.fence },
          ),
        );
        this.lifecycleState = state;
      } catch (err) {
        // Not durable: say so to a stop requester; readers will judge the job once this worker is gone.
        this.server.notifyExit({ type: 'exit', code: info.code, signal: info.signal, state: this.lifecycleState });
        setTimeout(() => void this.shutDown(), linger).unref?.();
        throw failure(`The agent ended, but its ${state} state could not be recorded: ${describeError(err, 300)}`);
      }
      this.server.notifyExit({ type: 'exit', code: info.code, signal: info.signal, state });
      setTimeout(() => void this.shutDown(), linger).unref?.();
      return { state, escalated: outcome?.escalated ?? false, survivors: outcome?.survivors ?? [] };
    })();
    return this.finishing;
  }

  private saveFinalScreen(): void {
    try {
      const lines = this.mirror.visibleLines().map((l) => l.replace(/\s+$/, ''));
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      const file = join(this.store.jobDir(this.id), FINAL_SCREEN_FILE);
      const tmp = `${file}.tmp-${process.pid}`;
      writeFileSync(tmp, lines.join('\n') + (lines.length ? '\n' : ''), { mode: 0o600 });
      renameSync(tmp, file);
    } catch (err) {
      this.opts.log(`could not save the final screen: ${describeError(err)}`);
    }
  }

  private async shutDown(): Promise<void> {
    this.server.dispose();
    await this.writes;
    await this.output.close().catch(() => undefined);
    await this.claim.release().catch((err) => this.opts.log(`releasing the claim failed: ${describeError(err)}`));
    this.done(0);
  }

  // ---- stop ---------------------------------------------------------------------

  private async doStop(force: boolean): Promise<StopOutcome> {
    const pty = this.pty;
    if (!pty) {
      return this.finish('cancelled', { code: null, signal: null }, 'stopped before the agent started');
    }
    this.waiting?.dispose();
    if (this.stateWriteTimer) clearTimeout(this.stateWriteTimer);
    await this.write(async () => {
      await this.store.transition(this.id, 'cancelling', { detail: force ? 'force stop requested' : 'stop requested', waitingReason: null }, { fence: this.fence });
      this.lifecycleState = 'cancelling';
    });
    const grace = force ? 0 : this.job.settings.stopGraceMs;
    let escalated = false;
    void this.write(() =>
      this.store.appendTimeline(this.id, {
        generation: this.opts.generation,
        type: 'stop',
        message: `SIGTERM to session ${pty.pid}${force ? ' (force: SIGKILL at once)' : `, SIGKILL after ${grace} ms`}`,
      }),
    );
    const { survivors } = await terminateProcessTree({
      sid: pty.pid,
      marker: { name: ENV_MARKER, value: this.id },
      graceMs: grace,
      exclude: [process.pid],
      onEscalate: (pids) => {
        escalated = true;
        void this.write(() =>
          this.store.appendTimeline(this.id, {
            generation: this.opts.generation,
            type: 'stop-escalated',
            message: `grace of ${grace} ms ran out: SIGKILL to ${pids.join(', ')}`,
          }),
        );
      },
    });
    const info = await Promise.race([this.agentEnded, sleep(5000).then(() => ({ code: null, signal: 'SIGKILL' }))]);
    const named = survivors.map((p) => ({ pid: p.pid, command: (commandLineOf(p.pid) || p.comm).slice(0, 500) }));
    const detail = named.length
      ? `stopped, but still running: ${named.map((s) => `${s.pid} (${s.command})`).join(', ')}`.slice(0, 2000)
      : escalated
        ? `stopped: killed after the ${grace} ms grace`
        : 'stopped';
    return this.finish('cancelled', info, detail, { escalated, survivors: named });
  }

  /** A force stop during a graceful stop's grace: KILL what is left now. */
  private async killNow(): Promise<void> {
    const pty = this.pty;
    if (!pty || this.exitInfo) return;
    await terminateProcessTree({ sid: pty.pid, marker: { name: ENV_MARKER, value: this.id }, graceMs: 0, exclude: [process.pid] }).catch(
      (err) => this.opts.log(`force stop failed: ${describeError(err)}`),
    );
  }
}

function signalNameOf(n: number): string {
  return describeExit(128 + n).signal ?? `signal ${n}`;
}
