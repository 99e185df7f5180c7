/**
 * Whether an agent's finished check is about the work it has now. A check runs only once the agent
 * has ended (`checkBlocker`), so a result is out of date while the agent runs again (a retry or a
 * resume, queued or under way: its `endedAt` is cleared) and when that run ended after the check.
 * Shown as a pass or a failure it would speak for work nobody checked. One rule for the leader
 * that runs checks again and for every place a check is shown.
 */
import { isTerminalState, type Check, type JobRecord } from '../store/schema';

/** True when `job`'s check finished (passed or failed) before its latest run, or while that run is not over. */
export function checkOutOfDate(job: Pick<JobRecord, 'check' | 'lifecycle'>): boolean {
  const c = job.check;
  if (!c || (c.state !== 'passed' && c.state !== 'failed')) return false;
  if (!isTerminalState(job.lifecycle.state)) return true;
  return checkPredates(c, job.lifecycle.endedAt);
}

/** The check was recorded before `endedAt` (an unreadable time on either side: not out of date). */
function checkPredates(check: Pick<Check, 'at'>, endedAt: string | null | undefined): boolean {
  const ended = endedAt ? Date.parse(endedAt) : NaN;
  const at = Date.parse(check.at);
  return Number.isFinite(ended) && Number.isFinite(at) && at < ended;
}
