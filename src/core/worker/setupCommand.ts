/**
 * The worktree's setup command (`npm ci`, `uv sync`), run by the worker in a
 * terminal of its own before the agent starts, so its output reaches the
 * agent's log, screen mirror and attached viewers like the agent's would.
 * Run by `/bin/sh -c` under the same drain wrapper as the agent (no output
 * lost at exit). A setup that fails or times out ends its whole session and
 * every process carrying the job's marker before it reports.
 */
import { DrainMarker } from './drain';
import { describeExit, type Pty, type PtyModule } from './ptyHost';
import { stopAgentProcesses } from './stopAgent';
import { setTimeout as sleep } from 'node:timers/promises';

/** After the setup's exit, output may still trickle in: final after this much quiet (as for the agent). */
const EXIT_QUIET_MS = 60;
const EXIT_DRAIN_MAX_MS = 2000;
/** A setup being ended (timeout, stop) gets this long between SIGTERM and SIGKILL. */
const SETUP_KILL_GRACE_MS = 2000;

export interface SetupOutcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
}

export interface SetupCommandOptions {
  pty: PtyModule;
  command: string;
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  timeoutMs: number;
  jobId: string;
  /** Every byte the setup writes, in order (the marker removed). */
  onData(bytes: Buffer): void;
}


export class SetupCommand {
  readonly done: Promise<SetupOutcome>;
  private readonly pty: Pty;
  private readonly drain = new DrainMarker();
  private lastDataAt = 0;
  private timedOut = false;
  private ending: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: SetupCommandOptions) {
    const { file, args } = this.drain.wrap(['/bin/sh', '-c', opts.command]);
    this.pty = opts.pty.spawn(file, args, { name: opts.env.TERM, cols: opts.cols, rows: opts.rows, cwd: opts.cwd, env: opts.env, encoding: null });
    this.pty.onData((d) => this.onData(d as unknown as Buffer | string));
    let resolve!: (o: SetupOutcome) => void;
    this.done = new Promise((r) => (resolve = r));
    this.pty.onExit((e) => void this.onExit(e.exitCode, e.signal ?? 0).then(resolve));
    this.timer = setTimeout(() => {
      this.timedOut = true;
      void this.end();
    }, opts.timeoutMs);
  }

  get pid(): number {
    return this.pty.pid;
  }

  /** Ends the setup's session and its marked processes (a timeout or a stop); resolves when that was done. */
  end(): Promise<void> {
    this.ending ??= stopAgentProcesses({ sid: this.pty.pid, jobId: this.opts.jobId, graceMs: SETUP_KILL_GRACE_MS }).then(() => undefined);
    return this.ending;
  }

  private onData(data: Buffer | string): void {
    this.lastDataAt = Date.now();
    const { bytes, found } = this.drain.filter(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (found) {
      try {
        process.kill(this.pty.pid, 'SIGUSR1'); // everything was read: the wrapper may exit
      } catch {
        // already gone
      }
    }
    if (bytes.length > 0) this.opts.onData(bytes);
  }

  private async onExit(code: number, signal: number): Promise<SetupOutcome> {
    clearTimeout(this.timer);
    const deadline = Date.now() + EXIT_DRAIN_MAX_MS;
    while (Date.now() < deadline && Date.now() - this.lastDataAt < EXIT_QUIET_MS) await sleep(EXIT_QUIET_MS / 2);
    const tail = this.drain.end();
    if (tail.length > 0) this.opts.onData(tail);
    const outcome = this.outcomeOf(code, signal);
    // A setup that did not succeed ends everything it started (a timeout's end included, KILL after
    // the grace) before its failure is recorded and the worker exits: nothing of it outlives it.
    if (outcome.code !== 0 || outcome.signal || outcome.timedOut) await this.end();
    return outcome;
  }

  private outcomeOf(code: number, signal: number): SetupOutcome {
    if (signal) return { code: null, signal: describeExit(128 + signal).signal ?? `signal ${signal}`, timedOut: this.timedOut };
    const d = describeExit(code);
    return { code: d.exitCode, signal: d.signal, timedOut: this.timedOut };
  }
}

/** The lifecycle detail of a setup that did not succeed. */
export function setupFailureDetail(outcome: SetupOutcome, timeoutSeconds: number): string {
  if (outcome.timedOut) return `setup timed out after ${timeoutSeconds} s`;
  if (outcome.signal) return `setup failed (killed by ${outcome.signal})`;
  return `setup failed (exit ${outcome.code})`;
}
