/**
 * The worker's setup phase: the worktree's setup command run before the agent
 * (issue 13). It records how setup went (`setup.state`, the "setting up"
 * detail), shows the command's output like the agent's, fails the execution
 * when setup fails or times out, and ends the setup when a stop comes first.
 * Kept out of AgentWorker, which only asks it to run and to end.
 */
import { describeError } from '../common/errors';
import type { OutputLog } from '../store/outputLog';
import type { Setup } from '../store/schema';
import type { ExecutionRecord } from './executionRecord';
import type { PtyModule } from './ptyHost';
import type { ExitInfo } from './session';
import { SetupCommand, setupFailureDetail } from './setupCommand';

/** How long a stopped setup gets to report its end before the stop goes on without it. */
const END_WAIT_MS = 5000;

export interface SetupPhaseHost {
  readonly record: ExecutionRecord;
  readonly jobId: string;
  readonly cwd: string;
  readonly size: { cols: number; rows: number };
  /** Paddock's lines and the setup's output: to the log, the mirror and the viewers. */
  writeScreen(data: Buffer | string): void;
  /** The agent's log: it keeps the head and tail of the setup's output only (the mirror and viewers get all of it). */
  readonly log: Pick<OutputLog, 'beginBounded' | 'endBounded'>;
  /** Ends the execution `failed` with this detail (the worker's finish). */
  fail(info: ExitInfo, detail: string): Promise<void>;
  /** A stop was asked for: the stop records the end, not the setup. */
  isStopping(): boolean;
}

export class SetupPhase {
  private command: SetupCommand | undefined;

  constructor(private readonly host: SetupPhaseHost) {}

  /** Runs the setup command in its own terminal; false when the agent must not start (setup failed, or a stop came). */
  async run(nodePty: PtyModule, command: string, timeoutSeconds: number, env: Record<string, string>): Promise<boolean> {
    const { record } = this.host;
    await this.setState('running', null, 'setting up');
    this.host.log.beginBounded('setup');
    this.host.writeScreen(`\x1b[2m──── setup: ${command} ────\x1b[0m\r\n`);
    let run: SetupCommand;
    try {
      run = this.command = new SetupCommand({
        pty: nodePty,
        command,
        cwd: this.host.cwd,
        env,
        ...this.host.size,
        timeoutMs: timeoutSeconds * 1000,
        jobId: this.host.jobId,
        onData: (bytes) => this.host.writeScreen(bytes),
      });
    } catch (err) {
      this.host.log.endBounded();
      await this.setState('failed', null, null);
      await this.host.fail({ code: null, signal: null }, `setup could not start: ${describeError(err, 300)}`);
      return false;
    }
    record.timeline('setup', `setup started: ${command}`);
    const outcome = await run.done;
    this.host.log.endBounded();
    this.command = undefined;
    if (this.host.isStopping()) return false; // the stop records the setup's end and the agent's
    if (outcome.code === 0 && !outcome.signal && !outcome.timedOut) {
      this.host.writeScreen(`\x1b[2m──── setup done ────\x1b[0m\r\n`);
      record.timeline('setup', 'setup done');
      await this.setState('done', 0, null);
      return true;
    }
    const detail = setupFailureDetail(outcome, timeoutSeconds);
    this.host.writeScreen(`\r\n\x1b[2m──── ${detail} ────\x1b[0m\r\n`);
    await this.setState('failed', outcome.code, null);
    await this.host.fail({ code: outcome.code, signal: outcome.signal }, detail);
    return false;
  }

  /**
   * Stopped during setup: ends its processes and records that it did not finish
   * (a retry runs it again). Undefined when no setup runs.
   */
  async end(): Promise<ExitInfo | undefined> {
    const setup = this.command;
    if (!setup) return undefined;
    this.host.record.timeline('stop', `ending the setup (session ${setup.pid})`);
    await setup.end();
    const ended = await Promise.race([setup.done, new Promise<null>((r) => setTimeout(() => r(null), END_WAIT_MS))]);
    await this.host.record
      .update((j) => ({ ...j, setup: { ports: j.setup?.ports ?? [], state: 'failed', exitCode: ended?.code ?? null } }))
      .catch(() => undefined); // logged by the record
    return { code: ended?.code ?? null, signal: ended?.signal ?? null };
  }

  private setState(state: Setup['state'], exitCode: number | null, detail: string | null): Promise<void> {
    return this.host.record
      .update((j) => ({
        ...j,
        setup: { ports: j.setup?.ports ?? [], state, exitCode },
        lifecycle: j.lifecycle.state === 'starting' ? { ...j.lifecycle, detail } : j.lifecycle,
      }))
      .catch(() => undefined); // logged by the record
  }
}
