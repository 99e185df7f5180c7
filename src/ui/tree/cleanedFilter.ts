/**
 * Which cleaned agents the tree leaves out: those whose cleanup completed more
 * than `paddock.showCleanedFor` hours ago, unless the person turned on
 * "Show Cleaned Agents". Pure apart from the clock it is given.
 */
import type { JobRecord } from '../../core/store/schema';

const HOUR_MS = 3_600_000;

export function hiddenAsCleaned(job: JobRecord, now: number, showForHours: number, showAll: boolean): boolean {
  if (showAll || job.cleanup?.phase !== 'complete') return false;
  const cleanedAt = Date.parse(job.cleanup.updatedAt);
  if (!Number.isFinite(cleanedAt)) return false;
  return now - cleanedAt > showForHours * HOUR_MS;
}
