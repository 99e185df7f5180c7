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
import { checkUnderWay, needsAutomaticCheck } from './automaticChecks';
import { checkBlocker, hasLiveWorktree } from '../operations/rules';
import { processTableSource, readProcStat, type StatSource } from '../proc';
import type { JobRecord } from '../store/schema';

/**
 * What the leader would run (`needsAutomaticCheck`: ended, kept, and not checked since its latest
 * run, or recorded under way by a runner that is gone), less what would refuse the check outright
 * (a worktree no longer on disk, a cleanup begun): that leaves nothing to run. A check queued is
 * counted by `pendingWork` already.
 */
function awaitsCheck(job: JobRecord, stats: StatSource): boolean {
  if (!needsAutomaticCheck(job, stats)) return false;
  return checkUnderWay(job) ? hasLiveWorktree(job) : checkBlocker(job) === null;
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
