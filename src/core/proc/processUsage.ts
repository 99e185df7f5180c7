/**
 * What each process costs right now, for the per-agent figures (issue 13): its
 * resident memory, the CPU time it and its reaped children have used so far,
 * its parent and session, and the agent marker in its environment. An ended
 * process not yet reaped (a zombie) is listed, with no memory: its CPU time
 * moves to its parent only when reaped. Read by the process backend in one pass over
 * every process, asynchronously (the extension host asks for it).
 */
export interface ProcessUsage {
  pid: number;
  /** Same meaning as ProcStat.startTime: with the pid, one process. */
  startTime: number;
  /** Its parent: a process that ended is told apart as reaped by a member of its agent or not. */
  ppid: number;
  sid: number;
  /** The value of the agent marker variable in its environment (own processes only). */
  marker: string | undefined;
  rssBytes: number;
  /**
   * CPU time used since it started (user + system), with that of the children
   * it waited for (which count as its own once they end: the CPU of a build's
   * short-lived compilers is found so, in the parent that reaped them), in seconds.
   */
  cpuSeconds: number;
  /**
   * The part of cpuSeconds that came from children it waited for, where the
   * backend tells it apart (/proc); undefined where it does not (ps).
   */
  reapedCpuSeconds?: number;
  /**
   * The operating system's own recent CPU share, where the backend has one
   * (ps's %cpu): used when CPU time comes in steps too coarse for the interval.
   */
  cpuPercentHint?: number;
}

export interface ProcessUsageSnapshot {
  /** When it was taken (ms since the epoch). */
  at: number;
  processes: ProcessUsage[];
  /** The step of `cpuSeconds` (0.01 s from /proc and macOS's ps, 1 s from procps's ps). */
  cpuResolutionSeconds: number;
}
