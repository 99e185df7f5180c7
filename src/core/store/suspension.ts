/**
 * A suspended agent: its worker, or the agent itself, stopped by SIGSTOP (or SIGTSTP, or a tracer).
 * Nothing is written when a process is stopped and the lifecycle has no such state (DESIGN.md), so
 * the record goes on saying `running`; the processes say otherwise. This is read from them whenever
 * an agent is shown (`list`, `show`, the tree) and said beside the recorded state, with how to
 * resume it, and the worker's idle detection asks it before taking silence for waiting.
 *
 * One look at the processes for many agents (`processesAsync`: one `ps` run on the portable backend;
 * on Linux the workers', leaders' and leaders' children's own /proc files), only when an agent is live.
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

function suspensionFrom(job: JobRecord, processes: readonly ProcStat[]): Suspension | undefined {
  const execution = job.execution!;
  const worker = processes.find((p) => p.pid === execution.pid);
  // A worker that is gone or not the recorded one: the reader's reconciliation says so, not this.
  if (!worker || worker.startTime !== execution.startTime) return undefined;
  const leader = job.lifecycle.pid;
  const agent = leader !== null ? stoppedAgentPids(leader, execution.pid, processes) : [];
  const stopped = isStoppedState(worker.state);
  return stopped || agent.length > 0 ? { worker: stopped ? worker.pid : null, agent } : undefined;
}

/** Which of `jobs` are suspended, by id (those that are not are absent), in one look at the processes. */
export async function readSuspensions(jobs: readonly JobRecord[]): Promise<Map<string, Suspension>> {
  const found = new Map<string, Suspension>();
  if (!jobs.some((j) => !isTerminalState(j.lifecycle.state) && j.execution !== null)) return found; // no process to look at
  const boot = bootId();
  const live = jobs.filter((j) => mayBeSuspended(j, boot));
  if (live.length === 0) return found;
  const pids = new Set(live.map((j) => j.execution!.pid));
  const leaders = new Set(live.flatMap((j) => (j.lifecycle.pid !== null ? [j.lifecycle.pid] : [])));
  const processes = await processBackend().processesAsync(pids, leaders);
  for (const job of live) {
    const suspension = suspensionFrom(job, processes);
    if (suspension) found.set(job.id, suspension);
  }
  return found;
}

/** "suspended (SIGSTOP): agent 4242 — kill -CONT 4242 resumes it": one wording for the CLI and the window. */
export function suspensionWords(s: Suspension): string {
  const who = [s.worker !== null ? `worker ${s.worker}` : undefined, s.agent.length > 0 ? `agent ${s.agent.join(', ')}` : undefined].filter(Boolean).join(' and ');
  const pids = [...(s.worker !== null ? [s.worker] : []), ...s.agent];
  return `suspended (SIGSTOP): ${who} — kill -CONT ${pids.join(' ')} resumes ${pids.length === 1 ? 'it' : 'them'}`;
}
