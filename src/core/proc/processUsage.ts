/**
 * What each process costs right now, for the per-agent figures (issue 13): its
 * resident memory, the CPU time it has used so far, its session and the agent
 * marker in its environment. Read by the process backend in one pass over
 * every process, asynchronously (the extension host asks for it).
 */
export interface ProcessUsage {
  pid: number;
  /** Same meaning as ProcStat.startTime: with the pid, one process. */
  startTime: number;
  sid: number;
  /** The value of the agent marker variable in its environment (own processes only). */
  marker: string | undefined;
  rssBytes: number;
  /** CPU time used since it started (user + system), in seconds. */
  cpuSeconds: number;
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
