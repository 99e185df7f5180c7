/**
 * Stops an agent by whatever means still work: through its worker's socket
 * (the normal path: the worker records `cancelled`); when the worker is gone,
 * by signalling the agent's recorded session and every process carrying its
 * environment marker; with `force`, when the worker does not answer (frozen by
 * SIGSTOP, hung), by killing the agent's processes and the worker directly and
 * recording the end on the worker's behalf. Resolves after the outcome is durable.
 */
import { describeError, failure } from '../common/errors';
import { bootId, isSameAndRunningAsync, readProcStatAsync, RecordedProcess, signalEachIfSame, signalIfSameAsync, stillRunning, treeMembers, type EnvMarker, type ProcStat } from '../proc';
import { isStoppedState } from '../proc/procStat';
import { isTerminalState, JobRecord, JobStore, Leftover, UnresponsiveWorker } from '../store';
import { StopResult, WorkerClient } from '../protocol/client';
import { AGENT_MARKER_ENV } from './agentMarker';
import { cancelQueued } from '../operations/cancelQueued';
import { describeSurvivors, NamedProcess, stopAgentProcesses } from './stopAgent';
import { setTimeout as sleep } from 'node:timers/promises';

export interface StopJobOptions {
  force?: boolean;
  /** Overrides the job's stop grace (ms). Only used when the worker is gone. */
  graceMs?: number;
  /** How long to try to reach a live worker. */
  connectTimeoutMs?: number;
  /** Act on this generation only: one a retry started meanwhile is left alone (a stop without the operation lock). */
  generation?: number;
  /** The timeline note of a direct stop may fail to be written (a stop on a store nothing can be written in). */
  bestEffortNotes?: boolean;
}

/** Extra time beyond the grace for the worker to kill, prove and record. */
const STOP_MARGIN_MS = 20_000;
/** A forced stop gives a worker this long to answer before it is killed along with its agent. */
const FORCE_ANSWER_MS = 4_000;
/** How long a worker that ignores its stop gets to answer "hello" at all. */
const HELLO_TIMEOUT_MS = 5_000;
const WORKER_DEATH_WAIT_MS = 3_000;
/** A stop alongside the worker gives it this long to answer (or to act on the stop first) before and after ending its agent. */
const ALONGSIDE_HEAD_START_MS = 500;


export async function stopJob(store: JobStore, id: string, opts: StopJobOptions = {}): Promise<StopResult> {
  const force = opts.force ?? false;
  let job = await store.read(id);
  const moved = (): StopResult | undefined =>
    opts.generation !== undefined && job.lifecycle.generation !== opts.generation ? { state: job.lifecycle.state, escalated: false, survivors: [], via: 'none', ended: [] } : undefined;
  if (moved()) return moved()!;

  if (job.lifecycle.state === 'queued') {
    const next = await cancelQueued(store, id, 'stopped before it started');
    return { state: next.lifecycle.state, escalated: false, survivors: [], via: 'store' };
  }

  if (!isTerminalState(job.lifecycle.state)) {
    const worker = workerOf(job);
    const frozen = worker !== undefined && (await isFrozen(worker.pid, worker.startTime));
    if (frozen && !force) {
      throw failure(
        `The worker of agent ${id} (pid ${worker.pid}) is stopped (SIGSTOP) and cannot stop its agent; run paddock stop ${id} --force to end both directly`,
      );
    }
    let unanswered: unknown;
    // Without the lock on an unwritable store the worker's own records wait for space (up to 20 s each), so it
    // answers late: it is told, and what it was told to end is ended here as well, within the same grace.
    if (!frozen && !force && opts.bestEffortNotes) {
      const alongside = await stopAlongsideWorker(store, job, opts.graceMs ?? job.settings.stopGraceMs);
      if (alongside) return alongside;
    }
    if (!frozen) {
      try {
        return await stopThroughSocket(store, job, force, opts.connectTimeoutMs ?? 3000);
      } catch (err) {
        unanswered = err;
      }
    }
    // The worker may have died meanwhile: a fresh read reconciles it to `orphaned` and we stop directly.
    job = await store.read(id);
    if (moved()) return moved()!;
    if (!isTerminalState(job.lifecycle.state)) {
      if (force) return forceStop(store, job);
      // Alive but not serving yet (still starting, slow machine): SIGTERM to the worker means the same stop.
      const ended = await stopThroughWorkerSignal(store, job, job.settings.stopGraceMs + STOP_MARGIN_MS);
      if (!ended) {
        const why = unanswered === undefined ? 'it did not answer' : describeError(unanswered).replace(/\.$/, '');
        throw failure(`The worker of agent ${id} did not stop its agent (${why}); run paddock stop ${id} --force to end both directly`);
      }
      job = ended;
      if (job.lifecycle.state !== 'orphaned') return { state: job.lifecycle.state, escalated: false, survivors: [], via: 'worker' };
    }
  }

  // Ended, or its worker is gone: whatever of the agent still runs (orphaned, leftovers) is ended here.
  return stopDirectly(store, job, force ? 0 : (opts.graceMs ?? job.settings.stopGraceMs), opts.bestEffortNotes);
}

async function stopThroughSocket(store: JobStore, job: JobRecord, force: boolean, connectTimeoutMs: number): Promise<StopResult> {
  const client = await WorkerClient.connect(store, job.id, { connectTimeoutMs, requestTimeoutMs: force ? FORCE_ANSWER_MS : HELLO_TIMEOUT_MS });
  try {
    await client.hello();
    return await client.stop({ force, timeoutMs: force ? FORCE_ANSWER_MS * 2 : job.settings.stopGraceMs + STOP_MARGIN_MS });
  } finally {
    client.dispose();
  }
}

/**
 * Tells the worker to stop and ends the agent's session alongside it (both SIGTERM, then SIGKILL after the
 * grace: the worker's stop is under way, so the end is its stop, recorded `cancelled` by it once it can,
 * or from the stop request by a reader). Undefined when the worker cannot be reached (the usual way then).
 */
async function stopAlongsideWorker(store: JobStore, job: JobRecord, graceMs: number): Promise<StopResult | undefined> {
  let client: WorkerClient | undefined;
  try {
    client = await WorkerClient.connect(store, job.id, { connectTimeoutMs: 3000, requestTimeoutMs: HELLO_TIMEOUT_MS });
    await client.hello();
  } catch {
    client?.dispose();
    return undefined;
  }
  try {
    const answered = client.stop({ force: false, timeoutMs: graceMs + STOP_MARGIN_MS }).catch(() => undefined);
    // The worker first: its stop is what makes the agent's end a stop, not a crash, in its eyes.
    const soon = await Promise.race([answered, sleep(ALONGSIDE_HEAD_START_MS).then(() => undefined)]);
    if (soon) return soon;
    const members = await executionMembers(job);
    // Read again right before signalling, after the look: the head start is long enough for the worker to end
    // and a retry to start the next generation, whose processes carry the same marker. Still this execution
    // now, so every process the look found was started while it was the agent's.
    const now = await store.readStored(job.id);
    if (now.lifecycle.generation !== job.lifecycle.generation || now.execution?.pid !== job.execution?.pid) return { state: now.lifecycle.state, escalated: false, survivors: [], via: 'none', ended: [] };
    if (members.length === 0) return await answered;
    const { escalated, survivors } = await endByIdentity(members, graceMs);
    const late = await Promise.race([answered, sleep(ALONGSIDE_HEAD_START_MS).then(() => undefined)]);
    return late ?? { state: 'cancelled', escalated, survivors, via: 'direct', ended: [] };
  } finally {
    client.dispose();
  }
}

/**
 * Without the lock, only what is proven this execution's agent: the processes carrying the job's marker
 * that started since its worker did (an earlier generation's leftovers started before it), each ended by
 * its identity (pid and start time). No session is taken from the record or from a marked process: a
 * session id is a pid, reused, and every generation carries the same marker.
 */
async function executionMembers(job: JobRecord): Promise<(Leftover & RecordedProcess)[]> {
  const worker = workerOf(job);
  if (!worker) return [];
  const marked = await treeMembers(undefined, { name: AGENT_MARKER_ENV, value: job.id });
  return marked.filter((p) => p.startTime >= worker.startTime && p.pid !== process.pid).map((p) => ({ pid: p.pid, startTime: p.startTime, command: p.comm }));
}

/** The worker that runs (or was launched for) the job's current execution. */
function workerOf(job: JobRecord): UnresponsiveWorker | undefined {
  const generation = job.lifecycle.generation;
  // An identity recorded before the last boot names nothing now: its pid and start time may match another process.
  const boot = bootId();
  if (job.execution) {
    if (job.execution.bootId !== boot) return undefined;
    return { generation, pid: job.execution.pid, startTime: job.execution.startTime, ownerToken: job.execution.ownerToken };
  }
  // A launch whose start time is unknown proves no process to signal: its worker, refused at its claim once the
  // record has ended, starts nothing.
  if (job.launch && job.launch.generation === generation && job.launch.bootId === boot && job.launch.startTime !== null) {
    return { generation, pid: job.launch.workerPid, startTime: job.launch.startTime, ownerToken: null };
  }
  return undefined;
}

/**
 * The agent's processes as far as they can be proven the agent's: those carrying the job's marker
 * (every descendant inherits it, escaped or not), and the session `sid` they are in. The record's
 * `pid` is a number a damaged or hand-edited record may point at any process: it names the agent's
 * session only when a process carrying the marker is in that session; otherwise the session is the
 * one a marked process leads (or the first marked process's); or, with `worker` (identity-checked and
 * still running), the session whose leader it is the parent of. Nothing proven: no session at all.
 */
async function provenAgent(job: JobRecord, marker: EnvMarker, worker?: RecordedProcess): Promise<{ marked: ProcStat[]; sid: number | undefined }> {
  const marked = await treeMembers(undefined, marker);
  const recorded = job.lifecycle.pid;
  if (recorded !== null && recorded > 1) {
    if (marked.some((p) => p.sid === recorded)) return { marked, sid: recorded };
    // An agent that cleared its environment (env -i) is still the leader of the PTY session its live worker spawned.
    if (worker && (await isSameAndRunningAsync(worker))) {
      const leader = await readProcStatAsync(recorded);
      if (leader && leader.sid === recorded && leader.ppid === worker.pid) return { marked, sid: recorded };
    }
  }
  const sid = (marked.find((p) => p.pid === p.sid) ?? marked[0])?.sid;
  return { marked, sid: sid !== undefined && sid > 1 ? sid : undefined };
}

/** Stopped by a signal (SIGSTOP, SIGTSTP) or by a tracer: it cannot act on anything until continued. */
export async function isFrozen(pid: number, startTime: number): Promise<boolean> {
  const stat = await readProcStatAsync(pid);
  return stat !== undefined && stat.startTime === startTime && isStoppedState(stat.state);
}

/**
 * `stop --force` when the worker does not answer: SIGKILL the worker (continued first, so a
 * frozen one cannot linger) while the record lock is held, SIGKILL the agent's session and
 * marked processes, record `cancelled` for it, then prove nothing of the agent is left.
 */
async function forceStop(store: JobStore, job: JobRecord): Promise<StopResult> {
  const worker = workerOf(job);
  const marker = { name: AGENT_MARKER_ENV, value: job.id };
  // Proven before the worker is killed (its agent is reparented then); never the record's pid taken on trust.
  const proven = (await provenAgent(job, marker, worker)).sid;
  const killAgent = async () => {
    const sid = proven ?? (await provenAgent(job, marker)).sid;
    await signalEachIfSame(await treeMembers(sid, marker), 'SIGKILL');
  };
  let state = job.lifecycle.state;
  if (worker) {
    const detail = `stopped with --force: worker ${worker.pid} did not answer and was killed with its agent`;
    try {
      const ended = await store.endForUnresponsiveWorker(
        job.id,
        worker,
        async () => {
          await signalIfSameAsync(worker, 'SIGKILL');
          await signalIfSameAsync(worker, 'SIGCONT');
          await killAgent();
          const deadline = Date.now() + WORKER_DEATH_WAIT_MS;
          while ((await isSameAndRunningAsync(worker)) && Date.now() < deadline) await sleep(20);
        },
        detail,
      );
      state = ended.lifecycle.state;
    } catch (err) {
      // The worker recorded an end itself meanwhile, or a retry moved on: report what the record says.
      state = (await store.read(job.id)).lifecycle.state;
      if (!isTerminalState(state)) throw err;
    }
  } else {
    await killAgent();
  }
  const rest = await stopDirectly(store, { ...job, lifecycle: { ...job.lifecycle, state } }, 0);
  return { state, escalated: true, survivors: rest.survivors, via: 'direct', ended: rest.ended };
}

/** SIGTERMs the recorded worker (never a reused pid) and waits until its job is terminal; undefined if it cannot. */
async function stopThroughWorkerSignal(store: JobStore, job: JobRecord, timeoutMs: number): Promise<JobRecord | undefined> {
  const worker = workerOf(job);
  if (!worker || !(await signalIfSameAsync(worker, 'SIGTERM'))) return undefined;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const now = await store.read(job.id);
    if (isTerminalState(now.lifecycle.state)) return now;
    // A worker frozen meanwhile will never act on the signal.
    if (await isFrozen(worker.pid, worker.startTime)) return undefined;
    await sleep(100);
  }
  return undefined;
}

/**
 * The worker is gone (or the agent ended with processes left over): signal what is left of
 * the agent — its session, every marked escapee, and the processes its record lists as left
 * running (by pid and start time: one that dropped the marker is still reached) — TERM, grace,
 * KILL, and name what ended.
 */
async function stopDirectly(store: JobStore, job: JobRecord, graceMs: number, bestEffortNotes = false): Promise<StopResult> {
  // A terminal record no longer names the agent's pid: the marker every descendant inherits finds what is left.
  const marker = { name: AGENT_MARKER_ENV, value: job.id };
  // The record's pid is trusted as the agent's session only when a marked process proves it so.
  const { sid } = await provenAgent(job, marker);
  // Its session's other members belong to the agent too.
  const members = sid !== undefined ? await treeMembers(sid, marker) : [];
  const listed = await runningListed(job);
  const seen = new Map<number, NamedProcess>();
  if (sid && sid > 1) for (const p of members) seen.set(p.pid, { pid: p.pid, command: p.comm });
  for (const p of listed) seen.set(p.pid, { pid: p.pid, command: p.command.split(' ')[0] });
  if (seen.size === 0) return { state: job.lifecycle.state, escalated: false, survivors: [], via: 'none', ended: [] };
  let escalated = false;
  let survivors: NamedProcess[] = [];
  if (sid && sid > 1) ({ escalated, survivors } = await stopAgentProcesses({ sid, jobId: job.id, graceMs }));
  const unreached = await stillRunning(listed);
  if (unreached.length > 0) {
    const byIdentity = await endByIdentity(unreached, graceMs);
    escalated ||= byIdentity.escalated;
    survivors = [...survivors, ...byIdentity.survivors.filter((p) => !survivors.some((s) => s.pid === p.pid))];
  }
  const ended = [...seen.values()].filter((p) => !survivors.some((s) => s.pid === p.pid));
  // Whole: the store redacts the message, then cuts it (messageRedaction.ts).
  await store.appendTimeline(job.id, {
    generation: job.lifecycle.generation,
    type: 'stop-direct',
    message: survivors.length
      ? `worker gone; still running after SIGKILL: ${describeSurvivors(survivors)}`
      : `worker gone; the agent's leftover processes were stopped${escalated ? ` (SIGKILL after ${graceMs} ms)` : ''}: ${describeSurvivors(ended)}`,
  }).catch((err: unknown) => {
    // Ended all the same: a note the store cannot take must not turn the stop into a failure.
    if (!bestEffortNotes) throw err;
  });
  return { state: job.lifecycle.state, escalated, survivors, via: 'direct', ended };
}

/** The record's leftovers that still run as the processes recorded (an entry without a start time cannot be proven so). */
function runningListed(job: JobRecord): Promise<(Leftover & RecordedProcess)[]> {
  return stillRunning((job.leftovers ?? []).filter((p): p is Leftover & RecordedProcess => p.startTime !== undefined));
}

/** TERM, up to `graceMs` for them to exit, then KILL: each only while its pid still names the recorded process. */
async function endByIdentity(processes: (Leftover & RecordedProcess)[], graceMs: number): Promise<{ escalated: boolean; survivors: NamedProcess[] }> {
  await signalEachIfSame(processes, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while ((await stillRunning(processes)).length > 0 && Date.now() < deadline) await sleep(50);
  const left = await stillRunning(processes);
  await signalEachIfSame(left, 'SIGKILL');
  const killDeadline = Date.now() + 2000;
  while ((await stillRunning(left)).length > 0 && Date.now() < killDeadline) await sleep(20);
  return { escalated: left.length > 0, survivors: (await stillRunning(left)).map((p) => ({ pid: p.pid, command: p.command })) };
}
