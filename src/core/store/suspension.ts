/**
 * A suspended agent: its worker, or the agent itself, stopped by SIGSTOP (or SIGTSTP, or a tracer).
 * Nothing is written when a process is stopped and the lifecycle has no such state (DESIGN.md), so
 * the record goes on saying `running`; the processes say otherwise. This is read from them whenever
 * an agent is shown (`list`, `show`, the tree) and said beside the recorded state, with how to
 * resume it, and the worker's idle detection asks it before taking silence for waiting. The same
 * holds for the other processes a record says are at work (bugs 133, 134): the runner of a check
 * said to be running (which holds a capacity slot); the process launching an agent said to be
 * `starting` (its not yet claimed worker, and the holder of its operation lock); and the process
 * running a cleanup said to be under way (that lock's holder too). The caller names a lock's holder
 * (`operatorOf`). So is the worker of an ended agent still ending what it left running (a retry
 * waits for it).
 *
 * One look at the processes for many agents (`processesAsync`: one `ps` run on the portable backend;
 * on Linux the workers', leaders' and leaders' children's own /proc files), only when one is at work.
 */
import { bootId } from '../proc/identity';
import { processBackend } from '../proc/backend';
import { isStoppedState, type ProcStat } from '../proc/procStat';
import { isTerminalState, type JobRecord } from './schema';

export interface Suspension {
  /** The worker's pid when it is stopped: it records nothing, and answers no viewer, until continued. */
  worker: number | null;
  /** The agent's stopped processes: its PTY session's leader, and the command that leader runs. */
  agent: number[];
  /** The process running its check (`check.runner`), stopped: the check, and the slot it holds, wait on it. */
  checkRunner?: number;
  /** The process launching it (`starting`, not claimed yet), stopped: the launch, and its slot, wait on it. */
  launcher?: number;
  /** The process running its cleanup (a phase under way), stopped: the cleanup waits on it. */
  cleanupRunner?: number;
}

/** A process a record names by identity (pid, start time, boot id). */
export interface NamedProcess {
  pid: number;
  startTime: number;
  bootId: string;
}

export interface SuspensionSources {
  /** The holder an agent's operation lock names (alive or not: judged against the processes read): asked only of one being launched or cleaned up. */
  operatorOf?: (job: JobRecord) => Promise<NamedProcess | undefined>;
}

/**
 * The stopped ones among the agent's own processes: `leader` (the recorded agent pid, the PTY session
 * leader: the drain wrapper) when it is a child of the worker leading its own session, and the
 * command it runs (its children in that session). A stopped job inside an agent's shell is the
 * shell's business, not a suspended agent.
 */
export function stoppedAgentPids(leader: number, workerPid: number, processes: readonly ProcStat[]): number[] {
  const head = processes.find((p) => p.pid === leader);
  if (!head || head.sid !== leader || head.ppid !== workerPid) return [];
  return processes.filter((p) => (p.pid === leader || (p.ppid === leader && p.sid === leader)) && isStoppedState(p.state)).map((p) => p.pid);
}

/** Whether the agent the worker `workerPid` runs as session `leader` is stopped (the worker's own question). */
export async function agentStopped(leader: number, workerPid: number): Promise<boolean> {
  const processes = await processBackend().processesAsync(new Set([leader]), new Set([leader]));
  return stoppedAgentPids(leader, workerPid, processes).length > 0;
}

/** Live agents with an execution on this boot: the only ones whose processes can be stopped. */
function mayBeSuspended(job: JobRecord, boot: string): boolean {
  return !isTerminalState(job.lifecycle.state) && job.execution !== null && job.execution.bootId === boot;
}

/** A check recorded at work, run by a process of this boot. */
function checkRunnerOf(job: JobRecord, boot: string): NamedProcess | undefined {
  const c = job.check;
  return c?.runner && (c.state === 'running' || c.state === 'queued') && c.runner.bootId === boot ? c.runner : undefined;
}

/** Being launched: `starting` with no worker's claim yet. */
function unclaimed(job: JobRecord): boolean {
  return job.lifecycle.state === 'starting' && job.execution === null;
}

/** A cleanup between its request and its outcome: a process holding the job's lock runs it. */
function cleanupUnderWay(job: JobRecord): boolean {
  const phase = job.cleanup?.phase;
  return phase !== undefined && phase !== 'complete' && phase !== 'incomplete';
}

/** The worker of an ended agent still ending what it left running (a retry waits for it). */
function enderOf(job: JobRecord, boot: string): NamedProcess | undefined {
  const e = job.leftoversEnder;
  return e && !e.gone && isTerminalState(job.lifecycle.state) && e.bootId === boot ? e : undefined;
}

/** The worker spawned for an unclaimed start, before it claims (not one whose start time is unknown: no process is proven its). */
function launchWorkerOf(job: JobRecord, boot: string): NamedProcess | undefined {
  const l = job.launch;
  const named = unclaimed(job) && l && l.generation === job.lifecycle.generation && l.bootId === boot && l.startTime !== null;
  return named ? { pid: l.workerPid, startTime: l.startTime!, bootId: l.bootId } : undefined;
}

/** What to look at of one job: the named processes, and the leader whose session is the agent's. */
interface Looked {
  job: JobRecord;
  checkRunner?: NamedProcess;
  launcher?: NamedProcess;
  cleanupRunner?: NamedProcess;
  launchWorker?: NamedProcess;
  ender?: NamedProcess;
}

function suspensionFrom(looked: Looked, processes: readonly ProcStat[], boot: string): Suspension | undefined {
  const { job } = looked;
  const stopped = (who: NamedProcess | undefined): number | null => {
    const p = who && who.bootId === boot ? processes.find((q) => q.pid === who.pid) : undefined;
    return p && p.startTime === who!.startTime && isStoppedState(p.state) ? p.pid : null;
  };
  let worker: number | null = null;
  let agent: number[] = [];
  if (mayBeSuspended(job, boot)) {
    const execution = job.execution!;
    const found = processes.find((p) => p.pid === execution.pid);
    // A worker that is gone or not the recorded one: the reader's reconciliation says so, not this.
    if (found && found.startTime === execution.startTime) {
      const leader = job.lifecycle.pid;
      agent = leader !== null ? stoppedAgentPids(leader, execution.pid, processes) : [];
      worker = isStoppedState(found.state) ? found.pid : null;
    }
  } else {
    worker = stopped(looked.launchWorker) ?? stopped(looked.ender);
  }
  const checkRunner = stopped(looked.checkRunner);
  const launcher = stopped(looked.launcher);
  const cleanupRunner = stopped(looked.cleanupRunner);
  if (worker === null && agent.length === 0 && checkRunner === null && launcher === null && cleanupRunner === null) return undefined;
  return {
    worker,
    agent,
    ...(checkRunner !== null ? { checkRunner } : {}),
    ...(launcher !== null ? { launcher } : {}),
    ...(cleanupRunner !== null ? { cleanupRunner } : {}),
  };
}

/** Which of `jobs` are suspended, by id (those that are not are absent), in one look at the processes. */
export async function readSuspensions(jobs: readonly JobRecord[], sources: SuspensionSources = {}): Promise<Map<string, Suspension>> {
  const found = new Map<string, Suspension>();
  const atWork = (j: JobRecord) => (!isTerminalState(j.lifecycle.state) && j.execution !== null) || unclaimed(j) || cleanupUnderWay(j) || (j.check?.runner ?? null) !== null || !!j.leftoversEnder;
  if (!jobs.some(atWork)) return found; // no process to look at
  const boot = bootId();
  const looked: Looked[] = [];
  // Each lock's owner file read at once (no process run for them): its holder is judged in the one look below.
  const operators = await Promise.all(jobs.map((job) => ((unclaimed(job) || cleanupUnderWay(job)) && sources.operatorOf ? sources.operatorOf(job) : undefined)));
  for (const [i, job] of jobs.entries()) {
    const operator = operators[i];
    const one: Looked = {
      job,
      checkRunner: checkRunnerOf(job, boot),
      launcher: unclaimed(job) ? operator : undefined,
      cleanupRunner: cleanupUnderWay(job) ? operator : undefined,
      launchWorker: launchWorkerOf(job, boot),
      ender: enderOf(job, boot),
    };
    if (mayBeSuspended(job, boot) || one.checkRunner || one.launcher || one.cleanupRunner || one.launchWorker || one.ender) looked.push(one);
  }
  if (looked.length === 0) return found;
  const pids = new Set<number>();
  for (const l of looked) {
    if (mayBeSuspended(l.job, boot)) pids.add(l.job.execution!.pid);
    for (const who of [l.checkRunner, l.launcher, l.cleanupRunner, l.launchWorker, l.ender]) if (who) pids.add(who.pid);
  }
  const leaders = new Set(looked.flatMap((l) => (mayBeSuspended(l.job, boot) && l.job.lifecycle.pid !== null ? [l.job.lifecycle.pid] : [])));
  const processes = await processBackend().processesAsync(pids, leaders);
  for (const l of looked) {
    const suspension = suspensionFrom(l, processes, boot);
    if (suspension) found.set(l.job.id, suspension);
  }
  return found;
}

/** "suspended (SIGSTOP): agent 4242 — kill -CONT 4242 resumes it": one wording for the CLI and the window. */
export function suspensionWords(s: Suspension): string {
  const named: [string, number[]][] = [
    ['worker', s.worker !== null ? [s.worker] : []],
    ['agent', s.agent],
    // Named neutrally: once a launch's wait has timed out, its lock may be held by anyone's `paddock stop`.
    ['the process holding its lock,', s.launcher !== undefined ? [s.launcher] : []],
    ['check runner', s.checkRunner !== undefined ? [s.checkRunner] : []],
    ['cleanup runner', s.cleanupRunner !== undefined ? [s.cleanupRunner] : []],
  ];
  const present = named.filter(([, pids]) => pids.length > 0);
  const who = present.map(([what, pids]) => `${what} ${pids.join(', ')}`).join(' and ');
  const pids = [...new Set(present.flatMap(([, p]) => p))];
  return `suspended (SIGSTOP): ${who} — kill -CONT ${pids.join(' ')} resumes ${pids.length === 1 ? 'it' : 'them'}`;
}
