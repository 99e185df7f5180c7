/**
 * A person's check (Run Check, `paddock check`) names the process running it
 * (`check.runner`). That process can die mid-check — a SIGKILLed CLI, a window
 * reloaded or closed — and nothing else ever finishes the record: it said
 * "check running" for good, held a capacity slot for good (queued agents never
 * started without a window) and refused every new check. Every reader judges
 * the runner as it judges a worker, and a check whose runner is gone is
 * recorded failed at once. The checks of attempts (a `group`) are left to the
 * leader, which ends what such a check left running and runs it again.
 */
import { livenessOf, readProcStat, type StatSource } from '../proc/identity';
import type { Check, JobRecord } from './schema';

/** Whether `job` has a person's check recorded under way whose runner is gone (pid, start time, boot id). */
export function checkRunnerGone(job: JobRecord, stats: StatSource = readProcStat): boolean {
  const c = job.check;
  if (job.group || !c?.runner || (c.state !== 'running' && c.state !== 'queued')) return false;
  return livenessOf(c.runner, stats) !== 'alive';
}

/** The check as recorded once its runner was found gone: failed, saying why; what it started carries the job's marker, so Stop ends it. */
export function checkOfGoneRunner(check: Check, now = new Date()): Check {
  const pid = check.runner?.pid;
  const what = check.state === 'running' ? 'ended before the check finished' : 'ended while the check waited for a slot';
  return {
    state: 'failed',
    exitCode: null,
    durationMs: check.state === 'running' ? Math.max(0, now.getTime() - Date.parse(check.at)) || null : null,
    at: now.toISOString(),
    summary: `The process running it (pid ${pid}) ${what}; run the check again (Stop ends anything it left running).`,
    runner: null,
  };
}
