/**
 * Whether an agent's finished check is about the work it has now. A check that ended before the
 * agent's last execution did (it was retried after the check, or resumed) judged earlier work:
 * shown as a pass or a failure it would speak for work nobody checked. One rule for the leader
 * that runs checks again and for every place a check is shown.
 */
import type { Check, JobRecord } from '../store/schema';

/** True when `job`'s check finished (passed or failed) before its last execution ended. */
export function checkOutOfDate(job: Pick<JobRecord, 'check' | 'lifecycle'>): boolean {
  const c = job.check;
  if (!c || (c.state !== 'passed' && c.state !== 'failed')) return false;
  return checkPredates(c, job.lifecycle.endedAt);
}

/** The check was recorded before `endedAt` (an unreadable time on either side: not out of date). */
export function checkPredates(check: Pick<Check, 'at'>, endedAt: string | null | undefined): boolean {
  const ended = endedAt ? Date.parse(endedAt) : NaN;
  const at = Date.parse(check.at);
  return Number.isFinite(ended) && Number.isFinite(at) && at < ended;
}
