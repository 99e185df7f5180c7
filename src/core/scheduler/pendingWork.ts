/**
 * What is left for a coordinator to do in a store: queued agents to launch,
 * agents launching, cleanups to retry soon, and attempts to check. A background coordinator
 * started by the CLI (`paddock coordinate --until-idle`) exits once this is
 * empty; the CLI starts one when it leaves such work behind. An ended attempt whose check is still
 * to run counts as well, but only where a check command is in force: that needs reading the
 * repository's config, so it is asked apart (`checksDue.ts`).
 */
import { cleanupWaitsForPerson } from '../operations/rules';
import { isTerminalState, type JobRecord } from '../store/schema';

/** A cleanup retry due later than this is not worth a process waiting for it. */
export const CLEANUP_HORIZON_MS = 10 * 60_000;

export interface PendingWork {
  /** Agents waiting for a slot. */
  queued: string[];
  /** Agents whose worker is being launched. */
  launching: string[];
  /** Agents whose cleanup is incomplete and due to be retried within the horizon (or was interrupted). */
  cleanups: string[];
  /** Attempts (agents of a group) still running, whose check runs when they end, and checks waiting for a slot. */
  checks: string[];
}

export function pendingWork(jobs: readonly JobRecord[], now = Date.now(), horizonMs = CLEANUP_HORIZON_MS): PendingWork {
  const work: PendingWork = { queued: [], launching: [], cleanups: [], checks: [] };
  for (const job of jobs) {
    if ((job.group && !isTerminalState(job.lifecycle.state)) || job.check?.state === 'queued') work.checks.push(job.id);
    if (job.lifecycle.state === 'queued') work.queued.push(job.id);
    else if (job.lifecycle.state === 'starting') work.launching.push(job.id);
    const c = job.cleanup;
    if (!c || c.phase === 'complete' || cleanupWaitsForPerson(c)) continue;
    const due = c.phase === 'incomplete' && c.nextAttemptAt ? Date.parse(c.nextAttemptAt) : now;
    if (due - now <= horizonMs) work.cleanups.push(job.id);
  }
  return work;
}

export function hasPendingWork(work: PendingWork): boolean {
  return work.queued.length + work.launching.length + work.cleanups.length + work.checks.length > 0;
}
