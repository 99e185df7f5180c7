/**
 * A stop asked of the worker (a controller on its socket, or SIGTERM). Before
 * the agent started, the record says so (a setup under way ends first); with
 * the agent running, its session gets SIGTERM and, after the job's grace (none
 * when forced), SIGKILL, and the execution ends `cancelled` naming what survived.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LifecycleState } from '../store';
import type { ExecutionRecord } from './executionRecord';
import type { Pty } from './ptyHost';
import type { ExitInfo, StopOutcome } from './session';
import type { SetupPhase } from './setupPhase';
import { stopAgentProcesses, stopDetail } from './stopAgent';

export interface ExecutionStopHost {
  readonly jobId: string;
  readonly record: ExecutionRecord;
  /** The agent's terminal, when it was spawned before the stop. */
  readonly pty: Pty | undefined;
  /** The setup command's phase, if there is one (asked once the record says the stop). */
  setupPhase(): SetupPhase | undefined;
  /** SIGTERM's grace before SIGKILL, unless forced. */
  readonly graceMs: number;
  /** Resolves with how the agent ended. */
  readonly agentEnded: Promise<ExitInfo>;
  /** Nobody looks for a wait any more. */
  stopWaiting(): void;
  /** Ends the execution (executionEnd.ts). */
  finish(state: LifecycleState, info: ExitInfo, detail: string, outcome?: Omit<StopOutcome, 'state'>): Promise<StopOutcome>;
}

export async function stopExecution(host: ExecutionStopHost, force: boolean): Promise<StopOutcome> {
  const { record } = host;
  const pty = host.pty;
  if (!pty) {
    // starting → cancelled is not a legal step: the record says the stop first.
    if (record.state === 'starting') {
      await record.transition('cancelling', { detail: force ? 'force stop requested' : 'stop requested' }).catch(() => undefined);
    }
    // Stopped during setup: its processes end first, then the record says so.
    const ended = await host.setupPhase()?.end();
    if (ended) return host.finish('cancelled', ended, 'stopped during setup');
    return host.finish('cancelled', { code: null, signal: null }, 'stopped before the agent started');
  }
  host.stopWaiting();
  await record.transition('cancelling', { detail: force ? 'force stop requested' : 'stop requested', waitingReason: null }).catch(() => undefined);
  const grace = force ? 0 : host.graceMs;
  record.timeline('stop', `SIGTERM to session ${pty.pid}${force ? ' (force: SIGKILL at once)' : `, SIGKILL after ${grace} ms`}`);
  const { escalated, survivors } = await stopAgentProcesses({
    sid: pty.pid,
    jobId: host.jobId,
    graceMs: grace,
    onEscalate: (pids) => record.timeline('stop-escalated', `grace of ${grace} ms ran out: SIGKILL to ${pids.join(', ')}`),
  });
  const info = await Promise.race([host.agentEnded, sleep(5000).then(() => ({ code: null, signal: 'SIGKILL' }))]);
  const detail = stopDetail({ escalated, survivors, graceMs: grace });
  return host.finish('cancelled', info, detail, { escalated, survivors });
}
