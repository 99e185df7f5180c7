/**
 * What is left for a coordinator to do in a store: queued agents to launch,
 * agents launching, and cleanups to retry soon. A background coordinator
 * started by the CLI (`paddock coordinate --until-idle`) exits once this is
 * empty; the CLI starts one when it leaves such work behind.
 */
import type { JobRecord } from '../store/schema';

/** A cleanup retry due later than this is not worth a process waiting for it. */
export const CLEANUP_HORIZON_MS = 10 * 60_000;

export interface PendingWork {
  /** Agents waiting for a slot. */
  queued: string[];
  /** Agents whose worker is being launched. */
  launching: string[];
  /** Agents whose cleanup is incomplete and due to be retried within the horizon (or was interrupted). */
  cleanups: string[];
}

export function pendingWork(jobs: readonly JobRecord[], now = Date.now(), horizonMs = CLEANUP_HORIZON_MS): PendingWork {
  const work: PendingWork = { queued: [], launching: [], cleanups: [] };
  for (const job of jobs) {
    if (job.lifecycle.state === 'queued') work.queued.push(job.id);
    else if (job.lifecycle.state === 'starting') work.launching.push(job.id);
    const c = job.cleanup;
    if (!c || c.phase === 'complete' || c.awaitingConsent) continue;
    const due = c.phase === 'incomplete' && c.nextAttemptAt ? Date.parse(c.nextAttemptAt) : now;
    if (due - now <= horizonMs) work.cleanups.push(job.id);
  }
  return work;
}

export function hasPendingWork(work: PendingWork): boolean {
  return work.queued.length + work.launching.length + work.cleanups.length > 0;
}
