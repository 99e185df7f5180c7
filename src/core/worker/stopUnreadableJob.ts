/**
 * Stops an agent whose record cannot be read. The record names no pid, no
 * worker and no socket token, and it must stay exactly as it is (the person's
 * to inspect or repair), so nothing here writes it: what runs is found by the
 * environment marker every process of the agent inherits. Its PTY session and
 * every marked escapee are ended by the same process-tree stop as a readable
 * agent's (TERM, grace, KILL; at once with `force`); the worker, whose agent is
 * gone, then exits by itself and releases its execution lock (it cannot record
 * the end either). A worker that does not (frozen, hung) is killed only with
 * `force`, as for a readable agent.
 */
import { commandLineOf, isSameAndRunningAsync, markedSessions, readProcStatAsync, RecordedProcess, signalIfSameAsync, treeMembers, type ProcStat } from '../proc';
import { describeError, failure } from '../common/errors';
import type { JobStore } from '../store';
import { AGENT_MARKER_ENV } from './agentMarker';
import { NamedProcess, stopAgentProcesses } from './stopAgent';
import { isFrozen } from './stopJob';
import { setTimeout as sleep } from 'node:timers/promises';

export interface UnreadableStopResult {
  /** Processes of the agent this stop ended. */
  ended: NamedProcess[];
  /** Still running after SIGKILL (normally empty). */
  survivors: NamedProcess[];
  /** The worker still holds the execution after its agent ended (frozen or hung; killed only with `force`). */
  workerLeft: { pid: number } | null;
  /** Why the worker could not be identified (its command-line look failed), or null. */
  workerUnknown: string | null;
}

/** How long the worker gets to notice its agent ended and exit on its own. */
const WORKER_EXIT_WAIT_MS = 8_000;


export async function stopUnreadableJob(store: JobStore, id: string, opts: { force: boolean; graceMs: number }): Promise<UnreadableStopResult> {
  const marker = { name: AGENT_MARKER_ENV, value: id };
  const marked = await treeMembers(undefined, marker);
  const leader = agentSessionLeader(marked);
  // Seen before its agent goes (afterwards the worker is no longer anyone's parent).
  const found = leader ? await workerOf(leader, id) : { worker: undefined, unknown: null };
  const { worker, unknown: workerUnknown } = found;
  if (worker && !opts.force && (await isFrozen(worker.pid, worker.startTime))) {
    // As for a readable agent: a frozen worker is ended only when the person forces it.
    throw failure(`The worker of agent ${id} (pid ${worker.pid}) is stopped (SIGSTOP); run paddock stop ${id} --force to end it and its agent directly`);
  }
  const seen = new Map<number, NamedProcess>(marked.map((p) => [p.pid, { pid: p.pid, command: p.comm }]));
  // Every distinct session of the agent: the PTY's first, then each escapee's own (setsid).
  const sessions = markedSessions(marked, leader?.sid);
  const graceMs = opts.force ? 0 : opts.graceMs;
  const survivors: NamedProcess[] = [];
  for (const sid of sessions) {
    for (const p of await treeMembers(sid, marker)) if (!seen.has(p.pid)) seen.set(p.pid, { pid: p.pid, command: p.comm });
    const result = await stopAgentProcesses({ sid, jobId: id, graceMs });
    for (const p of result.survivors) if (!survivors.some((s) => s.pid === p.pid)) survivors.push(p);
  }
  const ended = [...seen.values()].filter((p) => !survivors.some((s) => s.pid === p.pid));
  const workerLeft = await awaitWorkerExit(store, id, worker, opts.force);
  if (workerLeft && worker && opts.force) {
    await signalIfSameAsync(worker, 'SIGKILL');
    await signalIfSameAsync(worker, 'SIGCONT');
    const deadline = Date.now() + 3_000;
    while ((await isSameAndRunningAsync(worker)) && Date.now() < deadline) await sleep(20);
    if (!(await isSameAndRunningAsync(worker))) return { ended: [...ended, { pid: worker.pid, command: 'worker' }], survivors, workerLeft: null, workerUnknown };
  }
  return { ended, survivors, workerLeft, workerUnknown };
}

/** The leader of the agent's PTY session: a marked session leader whose parent (the worker) carries no marker. */
function agentSessionLeader(marked: readonly ProcStat[]): ProcStat | undefined {
  const markedPids = new Set(marked.map((p) => p.pid));
  return marked.find((p) => p.pid === p.sid && !markedPids.has(p.ppid));
}

/**
 * The session leader's parent, when it is this job's worker (its command line says `--job ID`).
 * A command-line look that fails leaves the worker unknown (why, in `unknown`): the agent is still
 * ended, since a failed look at the worker is no reason to leave the agent running (it threw and
 * the whole stop signalled nothing).
 */
async function workerOf(leader: ProcStat, id: string): Promise<{ worker: RecordedProcess | undefined; unknown: string | null }> {
  const parent = leader.ppid > 1 ? await readProcStatAsync(leader.ppid) : undefined;
  if (!parent) return { worker: undefined, unknown: null };
  let commandLine: string;
  try {
    commandLine = commandLineOf(parent.pid);
  } catch (err) {
    return { worker: undefined, unknown: describeError(err, 300) };
  }
  const args = commandLine.split(/\s+/);
  const at = args.indexOf('--job');
  return { worker: at >= 0 && args[at + 1] === id ? { pid: parent.pid, startTime: parent.startTime } : undefined, unknown: null };
}

/**
 * Waits for the worker to release the job's execution (its agent is gone, so it exits); the one
 * still holding it afterwards, or null. A forced stop waits less: it kills a worker that lingers.
 */
async function awaitWorkerExit(store: JobStore, id: string, worker: RecordedProcess | undefined, force: boolean): Promise<{ pid: number } | null> {
  const deadline = Date.now() + (force ? WORKER_EXIT_WAIT_MS / 4 : WORKER_EXIT_WAIT_MS);
  for (;;) {
    const stillHeld = worker ? await isSameAndRunningAsync(worker) : await holdsExecution(store, id);
    if (!stillHeld) return null;
    if (Date.now() >= deadline) return { pid: worker?.pid ?? 0 };
    await sleep(100);
  }
}

/** Whether a worker still holds the job's execution, judged by its lock (the record cannot say). */
async function holdsExecution(store: JobStore, id: string): Promise<boolean> {
  const entry = await store.tryRead(id);
  return !entry.ok && entry.workerRunning === true;
}
