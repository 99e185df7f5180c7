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
import { ProcStat, readProcStatAsync } from './identity';
import { treeMembers, type EnvMarker } from './scan';
import { signalEachIfSame, stillRunning } from './signal';
import { lookAgain } from './lookAgain';
import { setTimeout as sleep } from 'node:timers/promises';

export interface TerminateOptions {
  /** Session id of the tree (the agent's session leader pid). */
  sid: number;
  /** Environment variable that every descendant inherits (e.g. the job id). */
  marker?: EnvMarker;
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


export async function terminateProcessTree(opts: TerminateOptions): Promise<TerminateResult> {
  if (!Number.isInteger(opts.sid) || opts.sid <= 1) {
    throw usageError(`Session id ${opts.sid} is not a process session that can be stopped.`);
  }
  if ((await readProcStatAsync(process.pid))?.sid === opts.sid) {
    // Signalling our own session would take down this process's shell and siblings.
    throw usageError(`Session ${opts.sid} is this process's own session and cannot be stopped from here.`);
  }
  const excluded = new Set<number>([process.pid, ...(opts.exclude ?? [])]);
  /** Identity recorded when a pid was first seen; a later different start time means reuse. */
  const targets = new Map<number, ProcStat>();

  // Every look is asynchronous: a window's extension host stops agents too (an orphaned agent, a
  // check past its time), and on the portable backend each look is a `ps` run. Each is tried again
  // while it fails: one thrown mid-grace failed the stop with the tree sent SIGTERM only (bug 206).
  const scan = async (): Promise<ProcStat[]> => (await lookAgain(() => treeMembers(opts.sid, opts.marker))).filter((p) => !excluded.has(p.pid));

  /** Adds newly seen processes; returns the ones that were not known before. */
  const discover = async (): Promise<ProcStat[]> => {
    const fresh: ProcStat[] = [];
    for (const p of await scan()) {
      const known = targets.get(p.pid);
      if (known && known.startTime === p.startTime) continue;
      // A known pid with a new start time is a different process that joined the tree (it
      // carries the sid or the marker): track it under its own identity.
      targets.set(p.pid, p);
      fresh.push(p);
    }
    return fresh;
  };

  const signal = async (procs: ProcStat[], sig: Signal): Promise<void> => {
    const sent = await lookAgain(() => signalEachIfSame(procs, sig));
    // A stopped process acts on SIGTERM only once continued (as systemd does).
    if (sig === 'SIGTERM') for (const p of sent) continueStopped(p.pid);
  };

  const alive = (): Promise<ProcStat[]> => lookAgain(() => stillRunning([...targets.values()]));

  /** Polls until every target is gone or the deadline passes, signalling newcomers with `sig`. */
  const waitGone = async (deadline: number, sig: Signal): Promise<ProcStat[]> => {
    for (;;) {
      await signal(await discover(), sig);
      const left = await alive();
      if (left.length === 0 || Date.now() >= deadline) return left;
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  };

  await signal(await discover(), 'SIGTERM');
  let left = await waitGone(Date.now() + Math.max(0, opts.graceMs), 'SIGTERM');
  if (left.length > 0) {
    opts.onEscalate?.(left.map((p) => p.pid));
    await signal(left, 'SIGKILL');
    left = await waitGone(Date.now() + (opts.killWaitMs ?? 3000), 'SIGKILL');
  }

  // Proof: a fresh scan of /proc finds nothing of the tree still running.
  return { survivors: await scan() };
}

/** Right after its SIGTERM (microseconds: no pid is handed out again that soon); one that exited since is simply gone. */
function continueStopped(pid: number): void {
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    // ESRCH
  }
}
