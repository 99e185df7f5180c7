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

/**
 * A process's CPU time in clock ticks, from the fields of its /proc/<pid>/stat after the command name (`f[0]`
 * is the state): utime + stime + cutime + cstime (fields 14–17), its own and its waited-for children's. The one
 * rule for the stall watch's look (procfs.ts) and the usage pass, whose thread runs this function's own source
 * (procfsUsage.ts), so it stays plain: no other name than its argument and Number.
 */
export function statCpuTicks(f: readonly string[]): number {
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
}

export function isGoneState(state: string): boolean {
  // Z: zombie (exited, waiting to be reaped); X: dead. Neither runs any more.
  return state === 'Z' || state === 'X';
}

/** Stopped by a signal (SIGSTOP, SIGTSTP: T) or by a tracer (t): it runs nothing until continued. */
export function isStoppedState(state: string): boolean {
  return state === 'T' || state === 't';
}

/**
 * Whether an empty environment read from `stat`'s process may be one caught at exec (environ.ts),
 * worth reading again: not for one that ended (a zombie's stays empty), nor a Linux kernel thread
 * (kthreadd, pid 2, and its children), which never has one — run as root, the marker's look sees them.
 */
export function mayBeMidExec(stat: ProcStat, platform: NodeJS.Platform = process.platform): boolean {
  if (isGoneState(stat.state)) return false;
  return platform !== 'linux' || (stat.pid !== 2 && stat.ppid !== 2);
}
