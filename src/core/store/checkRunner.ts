/**
 * A person's check (Run Check, `paddock check`) names the process running it
 * (`check.runner`). That process can die mid-check — a SIGKILLed CLI, a window
 * reloaded, closed or killed — and nothing else ever finishes the record: it
 * said "check running" for good, held a capacity slot for good (queued agents
 * never started without a window) and refused every new check. Every reader
 * judges the runner as it judges a worker, and a check whose runner is gone is
 * recorded failed at once, once what the check left running has been ended
 * (found by its run's marker, derived from the record: nothing else would ever
 * end it). The checks of attempts the leader checks (a `group`, ended completed or
 * failed) are left to it: it ends what such a check left running and runs it again.
 */
import { livenessOf, readProcStat, type ProcessIdentity, type StatSource } from '../proc/identity';
import type { EnvMarker } from '../proc/backend';
import { findByEnvMarkerAsync, markedSessions } from '../proc/scan';
import { terminateProcessTree } from '../proc/terminate';
import type { Check, JobRecord } from './schema';

/** Marks the processes of one check run (on top of the job's marker, which the agent's processes carry too). */
export const CHECK_RUN_ENV = 'PADDOCK_CHECK_RUN';

/**
 * The marker of the check of `jobId` run by `runner`. Derived from what the record holds, so a
 * reader that finds the runner gone finds what the check left running. Unique enough: a job has
 * one check running at a time, and a runner's earlier check of it ended what it left when it exited.
 */
export function checkRunMarker(jobId: string, runner: ProcessIdentity): EnvMarker {
  return { name: CHECK_RUN_ENV, value: `${jobId}.${runner.pid}.${runner.startTime}` };
}

/**
 * An attempt whose check the leader runs, and runs again when its runner is gone: ended completed or
 * failed, its worktree kept (`needsAutomaticCheck` asks this first).
 */
export function leaderRunsCheck(job: JobRecord): boolean {
  const state = job.lifecycle.state;
  return !!job.group && (state === 'completed' || state === 'failed') && job.cleanup === null && job.worktree !== null;
}

/**
 * Whether `job` has a check recorded under way whose runner is gone (pid, start time, boot id), and
 * that no leader runs again: a person's, or an attempt's the leader does not check (cancelled,
 * orphaned, a cleanup begun). Those attempts' were skipped here too, and nothing else cleared them:
 * "already running" for good, and a capacity slot held.
 */
export function checkRunnerGone(job: JobRecord, stats: StatSource = readProcStat): boolean {
  const c = job.check;
  if (leaderRunsCheck(job) || !c?.runner || (c.state !== 'running' && c.state !== 'queued')) return false;
  return livenessOf(c.runner, stats) !== 'alive';
}

/** What ending a gone runner's check left: how many of its processes were ended, how many still run. */
export interface GoneCheckEnded {
  ended: number;
  survivors: number;
}

/**
 * Ends what the check of `job`, whose runner is gone, left running (TERM, the grace, KILL): the
 * sessions of the processes carrying its run's marker, and every one carrying it that escaped.
 * Without blocking the event loop (the window reads records too).
 */
export async function endGoneRunnersCheck(job: JobRecord, graceMs: number): Promise<GoneCheckEnded> {
  const runner = job.check?.runner;
  if (!runner) return { ended: 0, survivors: 0 };
  const marker = checkRunMarker(job.id, runner);
  const found = await findByEnvMarkerAsync(marker.name, marker.value);
  if (found.length === 0) return { ended: 0, survivors: 0 };
  // The check's own session and each escapee's, as an unreadable agent's are stopped.
  const survivors = new Set<number>();
  for (const sid of markedSessions(found)) {
    for (const p of (await terminateProcessTree({ sid, marker, graceMs })).survivors) survivors.add(p.pid);
  }
  return { ended: Math.max(0, found.length - survivors.size), survivors: survivors.size };
}

/** The check as recorded once its runner was found gone and what it left running was ended: failed, saying why. */
export function checkOfGoneRunner(check: Check, left: GoneCheckEnded, now = new Date()): Check {
  const pid = check.runner?.pid;
  const what = check.state === 'running' ? 'ended before the check finished' : 'ended while the check waited for a slot';
  return {
    state: 'failed',
    exitCode: null,
    durationMs: check.state === 'running' ? Math.max(0, now.getTime() - Date.parse(check.at)) || null : null,
    at: now.toISOString(),
    summary: `The process running it (pid ${pid}) ${what}${leftInWords(left)}; run the check again.`,
    runner: null,
  };
}

function leftInWords({ ended, survivors }: GoneCheckEnded): string {
  const processes = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;
  const parts: string[] = [];
  if (ended > 0) parts.push(`the ${processes(ended)} it left running ${ended === 1 ? 'was' : 'were'} ended`);
  if (survivors > 0) parts.push(`${processes(survivors)} it started did not end even when killed (Stop tries again)`);
  return parts.length ? `; ${parts.join('; ')}` : '';
}
