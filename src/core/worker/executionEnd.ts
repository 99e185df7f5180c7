/**
 * How a worker ends, whatever ended it (the agent's exit, a stop, a start that
 * failed): the terminal state recorded, the output flushed and the final screen
 * kept, the viewers told; then, once no client is connected (or after the
 * linger at the latest), the socket closed, the record's writes settled and the
 * claim released. Once only: the first end decides, a later one gets its outcome.
 */
import { join } from 'node:path';
import { describeError, failure } from '../common/errors';
import type { ExecutionClaim, LifecycleState, OutputLog, Redactor } from '../store';
import type { ControlServer } from './controlServer';
import type { ExecutionRecord, ListedLeftovers } from './executionRecord';
import { FINAL_SCREEN_FILE, saveFinalScreen } from './finalScreen';
import type { ScreenMirror } from './mirror';
import type { ExitInfo, StopOutcome } from './session';

/** How long the worker may stay for connected clients after the agent ended, unless set (AgentWorkerOptions.lingerMs). */
const DEFAULT_LINGER_MS = 2000;

export interface ExecutionEndHost {
  readonly jobDir: string;
  readonly record: ExecutionRecord;
  readonly server: ControlServer;
  readonly output: OutputLog;
  readonly mirror: ScreenMirror;
  readonly claim: ExecutionClaim;
  readonly redactor: Redactor;
  readonly lingerMs: number | undefined;
  log(message: string): void;
  /** The end is known, before anything is recorded: the agent takes no more input, nobody looks for a wait. */
  ended(info: ExitInfo): void;
  /** The worker may exit, with this code. */
  done(code: number): void;
}

export class ExecutionEnd {
  private finishing: Promise<StopOutcome> | undefined;
  private shuttingDown = false;
  /** When the wait for answers still in closing sockets ends at the latest: the linger after the end is recorded. */
  private answersBy = Number.POSITIVE_INFINITY;
  private hurried = false;
  private cutWait: (() => void) | undefined;

  constructor(private readonly host: ExecutionEndHost) {}

  /** The end under way (or made), if one began. */
  get underWay(): Promise<StopOutcome> | undefined {
    return this.finishing;
  }

  /**
   * Records the terminal state, tells the viewers, keeps the final screen briefly, then ends the worker.
   * `afterwards`: what the worker still does once the end is recorded (ending what the agent left
   * running); the worker, its claim and the outcome a stop requester gets wait for it.
   */
  finish(state: LifecycleState, info: ExitInfo, detail: string, outcome?: Omit<StopOutcome, 'state'>, listed?: ListedLeftovers, afterwards?: () => Promise<void>): Promise<StopOutcome> {
    this.finishing ??= this.end(state, info, detail, outcome, listed, afterwards);
    return this.finishing;
  }

  private async end(
    state: LifecycleState,
    info: ExitInfo,
    detail: string,
    outcome?: Omit<StopOutcome, 'state'>,
    listed?: ListedLeftovers,
    afterwards?: () => Promise<void>,
  ): Promise<StopOutcome> {
    const { record, server, mirror, log } = this.host;
    this.host.ended(info);
    await this.host.output.flush().catch((err) => log(`output flush failed: ${describeError(err)}`));
    await mirror.snapshotAt(); // every byte parsed: the screen is final
    saveFinalScreen(mirror, this.host.redactor, join(this.host.jobDir, FINAL_SCREEN_FILE), log);
    const linger = this.host.lingerMs ?? DEFAULT_LINGER_MS;
    try {
      await record.transition(state, { exitCode: info.code, signal: info.signal, endedAt: new Date().toISOString(), detail, waitingReason: null }, undefined, listed);
    } catch (err) {
      // Not durable: say so to a stop requester; readers will judge the job once this worker is gone.
      server.notifyExit({ type: 'exit', code: info.code, signal: info.signal, state: record.state });
      this.shutDownWhenUnwatched(linger);
      throw failure(`The agent ended, but its ${state} state could not be recorded: ${describeError(err, 300)}`);
    }
    server.notifyExit({ type: 'exit', code: info.code, signal: info.signal, state });
    await afterwards?.().catch((err) => log(`after the end: ${describeError(err)}`));
    this.shutDownWhenUnwatched(linger);
    return { state, escalated: outcome?.escalated ?? false, survivors: outcome?.survivors ?? [] };
  }

  /**
   * Ends the worker once no client is connected, or after `lingerMs` at the latest. A fixed linger
   * kept every worker 2 s after its agent ended, also with nobody to see the final screen: after a
   * cleanup the worker outlived "Cleaned up" by 1–3 s (docs/reliability.md).
   */
  private shutDownWhenUnwatched(lingerMs: number): void {
    this.answersBy = Date.now() + lingerMs;
    this.host.server.whenUnwatched(lingerMs, () => void this.shutDown());
  }

  private async shutDown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    const { server, record, output, claim, log } = this.host;
    server.dispose();
    await record.settled();
    record.freeze();
    await output.close().catch(() => undefined);
    await claim.release().catch((err) => log(`releasing the claim failed: ${describeError(err)}`));
    await this.answersDelivered();
    this.host.done(0);
  }

  /**
   * A SIGTERM: once the agent ended, the worker exits now, not after its clients' reading; before, the
   * stop it brings ends the same way. A cleanup or a person ending the worker waited on a client that
   * read nothing (bug 22's exit within a second after `cancelled`); one that came while the agent still
   * ran was forgotten, so its end waited the 2 s all the same (bug 223).
   */
  hurry(): void {
    this.hurried = true;
    this.cutWait?.();
  }

  /**
   * An exit drops answers still queued for a client reading them: it waits for those sockets, but no longer
   * than the linger (a client that reads slowly held the worker up to 30 s after its end), nor past a SIGTERM.
   */
  private async answersDelivered(): Promise<void> {
    if (this.hurried) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.cutWait = resolve;
      timer = setTimeout(resolve, Math.max(0, this.answersBy - Date.now()));
      void this.host.server.answersDelivered().then(resolve);
    });
    clearTimeout(timer);
  }
}
