/**
 * Which of an agent's recorded figures still hold: one rule for every view
 * (`list`, `show`, their `--json`, the window's tree, tooltip and status bar),
 * so no two views of one agent disagree. A recorded figure outlives what it
 * measured — the agent stopped after its last sample, the worktree was
 * cleaned up since — and is then no figure (null), not a stale one: CPU and
 * memory only while the agent's processes run, the worktree's size only
 * while the worktree is there.
 */
import { isTerminalState, type JobRecord, type Usage } from '../store/schema';

/** Whether an agent's processes run (or may: starting, stopping). */
export function isLiveAgent(job: JobRecord): boolean {
  return !isTerminalState(job.lifecycle.state) && job.lifecycle.state !== 'queued';
}

/** Whether the agent's worktree is on disk, as far as its record tells (cleanup removes it). */
export function hasWorktreeOnDisk(job: JobRecord): boolean {
  return job.worktree !== null && job.cleanup?.phase !== 'complete' && job.cleanup?.phase !== 'removing';
}

/** Whether the agent has figures to sample: it runs, or its worktree takes disk space. */
export function hasUsageToSample(job: JobRecord): boolean {
  return isLiveAgent(job) || hasWorktreeOnDisk(job);
}

/** The agent's recorded figures with those that no longer hold set to null; null when none was recorded. */
export function currentUsage(job: JobRecord): Usage | null {
  if (!job.usage) return null;
  const live = isLiveAgent(job);
  return {
    ...job.usage,
    cpuPercent: live ? job.usage.cpuPercent : null,
    rssBytes: live ? job.usage.rssBytes : null,
    diskBytes: hasWorktreeOnDisk(job) ? job.usage.diskBytes : null,
  };
}
