/**
 * Signalling by identity: a pid alone may by now name an unrelated process
 * (pid reuse), so the start time recorded when the process was first seen is
 * compared right before kill(2).
 */
import { processTableSource, readProcStat, readProcStatAsync, type ProcStat } from './identity';
import { isGoneState } from './scan';

export interface RecordedProcess {
  pid: number;
  startTime: number;
}

/** True when `recorded` still names the same process and it has not finished (zombies have). */
export function isSameAndRunning(recorded: RecordedProcess): boolean {
  return isRunningAs(readProcStat(recorded.pid), recorded);
}

/** Whether `now` (a stat just read, or undefined when the pid is gone) is `recorded`, still running. */
export function isRunningAs(now: ProcStat | undefined, recorded: RecordedProcess): boolean {
  return now !== undefined && now.startTime === recorded.startTime && !isGoneState(now.state);
}

/** `isSameAndRunning` without blocking the event loop. */
export async function isSameAndRunningAsync(recorded: RecordedProcess): Promise<boolean> {
  return isRunningAs(await readProcStatAsync(recorded.pid), recorded);
}

/**
 * Sends `signal` only if the pid still belongs to the recorded process; returns
 * whether it was sent. (A window of microseconds between the check and kill(2)
 * remains; closing it needs pidfd_send_signal, which Node does not expose.)
 */
export function signalIfSame(recorded: RecordedProcess, signal: NodeJS.Signals): boolean {
  return isSameAndRunning(recorded) && sendSignal(recorded.pid, signal);
}

/**
 * `signalIfSame` without blocking the event loop. On /proc the check is the same instant read; on
 * the portable backend the end of a `ps` run comes between the check and kill(2): milliseconds,
 * against the whole cycle of pids the system hands out before it reuses one.
 */
export async function signalIfSameAsync(recorded: RecordedProcess, signal: NodeJS.Signals): Promise<boolean> {
  return (await isSameAndRunningAsync(recorded)) && sendSignal(recorded.pid, signal);
}

/**
 * Those of `processes` still running as recorded, from one look without blocking: one `ps` run on
 * the portable backend however many there are (a run per process was a spawn each, and spawning
 * blocks the event loop for a few milliseconds), a cheap file read per process on /proc.
 */
export async function stillRunning<T extends RecordedProcess>(processes: readonly T[]): Promise<T[]> {
  if (processes.length === 0) return [];
  const stats = await processTableSource();
  return processes.filter((p) => isRunningAs(stats(p.pid), p));
}

/** `signalIfSame` for many processes at once, judged by one look (`stillRunning`); returns those signalled. */
export async function signalEachIfSame<T extends RecordedProcess>(processes: readonly T[], signal: NodeJS.Signals): Promise<T[]> {
  return (await stillRunning(processes)).filter((p) => sendSignal(p.pid, signal));
}

function sendSignal(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // ESRCH: it exited between the check and the signal.
  }
}
