/**
 * Attempts whose automatic check the leader is yet to run, for counting what is left to do
 * (`paddock coordinate --until-idle` waits for them; the CLI starts a background coordinator for
 * them): an ended attempt with no check about its latest run — none yet, or one out of date
 * (`checkOutOfDate`: a retry or resume ended since). Counted only when a check command is in force,
 * by the same reader the leader runs it with (`findCheckCommand`): a repository with no check
 * command, or an untrusted one, has nothing to run, and counting it kept a coordinator up forever.
 * A check queued or running is counted elsewhere (`pendingWork`, the leader's work in flight).
 */
import { findCheckCommand } from '../check/checkCommand';
import { checkOutOfDate } from '../check/checkCurrency';
import { checkInHand } from '../operations/check';
import { checkBlocker, hasLiveWorktree } from '../operations/rules';
import { processTableSource, readProcStat, type StatSource } from '../proc';
import type { JobRecord } from '../store/schema';

/**
 * Ended, kept, and not checked since its latest run: none yet, one out of date, or one recorded
 * running by a process that is gone (the leader died mid-check: the next one runs it again).
 * What `needsAutomaticCheck` would run; a check queued is counted by `pendingWork` already.
 */
function awaitsCheck(job: JobRecord, stats: StatSource): boolean {
  const state = job.lifecycle.state;
  if (!job.group || (state !== 'completed' && state !== 'failed')) return false;
  if (job.check?.state === 'running') return job.cleanup === null && hasLiveWorktree(job) && !checkInHand(job, stats);
  // What would refuse the check outright (cleaned up, a cleanup begun) leaves nothing to run.
  if (job.cleanup !== null || checkBlocker(job) !== null) return false;
  return job.check === null || job.check === undefined || checkOutOfDate(job);
}

export interface ChecksDueOptions {
  /** The store's home (where `paddock allow` keeps its list). */
  home: string;
  repoTrusted?: (repo: string) => boolean;
  /** Attempts the leader of this process has already found nothing to run for (it does not look again). */
  skip?: (job: JobRecord) => boolean;
}

/** Ids of attempts whose automatic check is still to be run, a check command being in force for each. */
export async function checksDue(jobs: readonly JobRecord[], opts: ChecksDueOptions): Promise<string[]> {
  const due: string[] = [];
  // A recorded runner is judged against one process table read after the records (one `ps` on the portable backend).
  const stats = jobs.some((j) => j.group && j.check?.state === 'running') ? await processTableSource() : readProcStat;
  for (const job of jobs) {
    if (!awaitsCheck(job, stats) || opts.skip?.(job)) continue;
    const command = await findCheckCommand(job, { home: opts.home, repoTrusted: opts.repoTrusted }).catch(() => null);
    if (command) due.push(job.id);
  }
  return due;
}
