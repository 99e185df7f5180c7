/**
 * Stops an agent's whole process tree and proves it stopped. The tree is the
 * agent's session (an interactive shell puts background jobs in their own
 * process groups, so signalling one group is not enough) plus every process
 * carrying the job's environment marker (children that escaped with setsid).
 *
 * Each target's identity (pid + start time) is recorded when first seen and
 * re-checked right before every signal (signalIfSame), so a pid reused by an
 * unrelated process is never signalled.
 */
import { usageError } from '../common/errors';
import { ProcStat, readProcStat } from './identity';
import { findByEnvMarker, isGoneState, sessionMembers } from './scan';
import { isSameAndRunning, signalIfSame } from './signal';

export interface TerminateOptions {
  /** Session id of the tree (the agent's session leader pid). */
  sid: number;
  /** Environment variable that every descendant inherits (e.g. the job id). */
  marker?: { name: string; value: string };
  /** How long processes get after SIGTERM before SIGKILL. */
  graceMs: number;
  /** Pids never signalled and never reported (the current process is always excluded). */
  exclude?: number[];
  /** Called once, with the pids about to receive SIGKILL, when the grace ran out. */
  onEscalate?: (pids: number[]) => void;
  /** How long to wait for SIGKILLed processes to disappear before reporting them (default 3000). */
  killWaitMs?: number;
}

export interface TerminateResult {
  /** Processes of the tree still running after SIGKILL and the final re-scan (normally empty). */
  survivors: ProcStat[];
}

const POLL_MS = 25;

type Signal = 'SIGTERM' | 'SIGKILL';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function terminateProcessTree(opts: TerminateOptions): Promise<TerminateResult> {
  if (!Number.isInteger(opts.sid) || opts.sid <= 1) {
    throw usageError(`Session id ${opts.sid} is not a process session that can be stopped.`);
  }
  if (readProcStat(process.pid)?.sid === opts.sid) {
    // Signalling our own session would take down this process's shell and siblings.
    throw usageError(`Session ${opts.sid} is this process's own session and cannot be stopped from here.`);
  }
  const excluded = new Set<number>([process.pid, ...(opts.exclude ?? [])]);
  /** Identity recorded when a pid was first seen; a later different start time means reuse. */
  const targets = new Map<number, ProcStat>();

  const scan = (): ProcStat[] => {
    const found = sessionMembers(opts.sid);
    if (opts.marker) found.push(...findByEnvMarker(opts.marker.name, opts.marker.value));
    return found.filter((p) => !excluded.has(p.pid) && !isGoneState(p.state));
  };

  /** Adds newly seen processes; returns the ones that were not known before. */
  const discover = (): ProcStat[] => {
    const fresh: ProcStat[] = [];
    for (const p of scan()) {
      const known = targets.get(p.pid);
      if (known && known.startTime === p.startTime) continue;
      // A known pid with a new start time is a different process that joined the tree (it
      // carries the sid or the marker): track it under its own identity.
      targets.set(p.pid, p);
      fresh.push(p);
    }
    return fresh;
  };

  const signal = (procs: ProcStat[], sig: Signal): void => {
    for (const p of procs) {
      // A stopped process acts on SIGTERM only once continued (as systemd does).
      if (signalIfSame(p, sig) && sig === 'SIGTERM') signalIfSame(p, 'SIGCONT');
    }
  };

  const alive = (): ProcStat[] => [...targets.values()].filter(isSameAndRunning);

  /** Polls until every target is gone or the deadline passes, signalling newcomers with `sig`. */
  const waitGone = async (deadline: number, sig: Signal): Promise<ProcStat[]> => {
    for (;;) {
      signal(discover(), sig);
      const left = alive();
      if (left.length === 0 || Date.now() >= deadline) return left;
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  };

  signal(discover(), 'SIGTERM');
  let left = await waitGone(Date.now() + Math.max(0, opts.graceMs), 'SIGTERM');
  if (left.length > 0) {
    opts.onEscalate?.(left.map((p) => p.pid));
    signal(left, 'SIGKILL');
    left = await waitGone(Date.now() + (opts.killWaitMs ?? 3000), 'SIGKILL');
  }

  // Proof: a fresh scan of /proc finds nothing of the tree still running.
  return { survivors: scan() };
}
