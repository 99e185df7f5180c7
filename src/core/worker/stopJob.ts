/**
 * Stops an agent by whatever means still work: through its worker's socket
 * (the normal path: the worker records `cancelled`), or — when the worker is
 * gone — by signalling the agent's recorded session and every process carrying
 * its environment marker. Resolves after the outcome is durable.
 */
import { findByEnvMarker, signalIfSame } from '../proc';
import { isTerminalState, JobRecord, JobStore } from '../store';
import { StopResult, WorkerClient } from '../protocol/client';
import { AGENT_MARKER_ENV } from './agentMarker';
import { describeSurvivors, stopAgentProcesses } from './stopAgent';

export interface StopJobOptions {
  force?: boolean;
  /** Overrides the job's stop grace (ms). Only used when the worker is gone. */
  graceMs?: number;
  /** How long to try to reach a live worker. */
  connectTimeoutMs?: number;
}

/** Extra time beyond the grace for the worker to kill, prove and record. */
const STOP_MARGIN_MS = 20_000;

export async function stopJob(store: JobStore, id: string, opts: StopJobOptions = {}): Promise<StopResult> {
  const force = opts.force ?? false;
  let job = await store.read(id);

  if (job.lifecycle.state === 'queued') {
    const next = await store.transition(id, 'cancelled', { detail: 'stopped before it started', endedAt: new Date().toISOString() }, { expectFrom: ['queued'] });
    return { state: next.lifecycle.state, escalated: false, survivors: [], via: 'store' };
  }

  if (!isTerminalState(job.lifecycle.state)) {
    try {
      const client = await WorkerClient.connect(store, id, { connectTimeoutMs: opts.connectTimeoutMs ?? 3000 });
      try {
        await client.hello();
        return await client.stop({ force, timeoutMs: (force ? 0 : job.settings.stopGraceMs) + STOP_MARGIN_MS });
      } finally {
        client.dispose();
      }
    } catch (err) {
      // The worker may have died meanwhile: a fresh read reconciles it to `orphaned` and we stop directly.
      job = await store.read(id);
      if (!isTerminalState(job.lifecycle.state)) {
        // Alive but not serving yet (still starting, slow machine): SIGTERM to the worker means the same stop.
        const ended = await stopThroughWorkerSignal(store, job, (force ? 0 : job.settings.stopGraceMs) + STOP_MARGIN_MS);
        if (!ended) throw err;
        job = ended;
        if (job.lifecycle.state !== 'orphaned') return { state: job.lifecycle.state, escalated: false, survivors: [], via: 'worker' };
      }
    }
  }

  if (job.lifecycle.state !== 'orphaned') {
    // Ended normally or already stopped: the worker proved its processes gone.
    return { state: job.lifecycle.state, escalated: false, survivors: [], via: 'none' };
  }
  return stopDirectly(store, job, force ? 0 : (opts.graceMs ?? job.settings.stopGraceMs));
}

/** SIGTERMs the recorded worker (never a reused pid) and waits until its job is terminal; undefined if it cannot. */
async function stopThroughWorkerSignal(store: JobStore, job: JobRecord, timeoutMs: number): Promise<JobRecord | undefined> {
  const identity = job.execution
    ? { pid: job.execution.pid, startTime: job.execution.startTime }
    : job.launch
      ? { pid: job.launch.workerPid, startTime: job.launch.startTime }
      : undefined;
  if (!identity || !signalIfSame(identity, 'SIGTERM')) return undefined;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const now = await store.read(job.id);
    if (isTerminalState(now.lifecycle.state)) return now;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** The worker is gone: signal what is left of the agent (its session and marked escapees). */
async function stopDirectly(store: JobStore, job: JobRecord, graceMs: number): Promise<StopResult> {
  // A terminal record no longer names the agent's pid: the marker every descendant inherits finds what is left.
  const sid = job.lifecycle.pid ?? findByEnvMarker(AGENT_MARKER_ENV, job.id)[0]?.sid;
  if (!sid || sid <= 1) return { state: job.lifecycle.state, escalated: false, survivors: [], via: 'none' };
  const { escalated, survivors } = await stopAgentProcesses({ sid, jobId: job.id, graceMs });
  await store.appendTimeline(job.id, {
    generation: job.lifecycle.generation,
    type: 'stop-direct',
    message: survivors.length
      ? `worker gone; still running after SIGKILL: ${describeSurvivors(survivors)}`.slice(0, 2000)
      : `worker gone; the agent's leftover processes were stopped${escalated ? ` (SIGKILL after ${graceMs} ms)` : ''}`,
  });
  return { state: job.lifecycle.state, escalated, survivors, via: 'direct' };
}
