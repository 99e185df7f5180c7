/** What Paddock needs to know of one process, whichever backend read it. */
export interface ProcStat {
  pid: number;
  comm: string;
  /** One letter: R, S, D, T, Z (zombie), X (dead)…; `ps` states are reduced to their first letter. */
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
  /** Foreground process group of the controlling terminal (-1 without one). */
  tpgid: number;
  /** Comparable only within one backend: clock ticks since boot (/proc) or epoch seconds (ps). */
  startTime: number;
}

export function isGoneState(state: string): boolean {
  // Z: zombie (exited, waiting to be reaped); X: dead. Neither runs any more.
  return state === 'Z' || state === 'X';
}

/** Stopped by a signal (SIGSTOP, SIGTSTP: T) or by a tracer (t): it runs nothing until continued. */
export function isStoppedState(state: string): boolean {
  return state === 'T' || state === 't';
}
