/**
 * Signalling by identity: a pid alone may by now name an unrelated process
 * (pid reuse), so the start time recorded when the process was first seen is
 * compared right before kill(2).
 */
import { readProcStat } from './identity';
import { isGoneState } from './scan';

export interface RecordedProcess {
  pid: number;
  startTime: number;
}

/** True when `recorded` still names the same process and it has not finished (zombies have). */
export function isSameAndRunning(recorded: RecordedProcess): boolean {
  const now = readProcStat(recorded.pid);
  return now !== undefined && now.startTime === recorded.startTime && !isGoneState(now.state);
}

/**
 * Sends `signal` only if the pid still belongs to the recorded process; returns
 * whether it was sent. (A window of microseconds between the check and kill(2)
 * remains; closing it needs pidfd_send_signal, which Node does not expose.)
 */
export function signalIfSame(recorded: RecordedProcess, signal: NodeJS.Signals): boolean {
  if (!isSameAndRunning(recorded)) return false;
  try {
    process.kill(recorded.pid, signal);
    return true;
  } catch {
    return false; // ESRCH: it exited between the check and the signal.
  }
}
