/**
 * The processes an ended agent left running (`leftovers` on the record) are
 * facts about other processes, which exit without telling anyone. Every reader
 * judges them as it judges a worker — pid plus start time plus boot id — and
 * drops the ones that are gone, so a record never shows an exited or reused pid
 * as still running.
 */
import { livenessOf, readProcStat, type StatSource } from '../proc/identity';
import { isGoneState } from '../proc/procStat';
import type { JobRecord, Leftover } from './schema';

function isRunning(p: Leftover, stats: StatSource): boolean {
  if (p.startTime !== undefined && p.bootId !== undefined) return livenessOf({ pid: p.pid, startTime: p.startTime, bootId: p.bootId }, stats) === 'alive';
  // An entry without its identity (written by hand or by an older worker): the pid alone, at best.
  const stat = stats(p.pid);
  return stat !== undefined && !isGoneState(stat.state);
}

/** The record's leftovers that still run, or undefined when none of them has gone (nothing to write). */
export function leftoversStillRunning(job: JobRecord, stats: StatSource = readProcStat): Leftover[] | undefined {
  const listed = job.leftovers ?? [];
  if (listed.length === 0) return undefined;
  const running = listed.filter((p) => isRunning(p, stats));
  return running.length === listed.length ? undefined : running;
}

/**
 * The worker named as ending the listed leftovers died before it was done (killed while it ended
 * them): they run on, and nothing of that worker will end them or say so. Judged like a worker
 * (pid, start time, boot id); false while it lives, when none is named, or once judged gone.
 */
export function leftoversEnderGone(job: JobRecord, stats: StatSource = readProcStat): boolean {
  const ender = job.leftoversEnder;
  return !!ender && !ender.gone && livenessOf(ender, stats) !== 'alive';
}

/**
 * A worker found gone named as ending leftovers none of which still runs (they exited by themselves):
 * once the lead pass's marker scan finds none either (one may have forked a marked process), nothing
 * is left to end, and the detail must not say one is left running.
 */
export function abandonedNoneLeft(job: JobRecord): boolean {
  return !!job.leftoversEnder?.gone && (job.leftovers?.length ?? 0) === 0;
}

/** The record once the leftovers of a gone ender have all exited: the ender is done with (its words then say they exited: leftoverWords.ts). */
export function withAbandonedDone(job: JobRecord): JobRecord {
  return { ...job, leftoversEnder: null };
}

/** The record once its leftovers' ender is found gone: they are left running (leftoverWords.ts), and the lead coordinator ends them. */
export function withEnderGone(job: JobRecord): JobRecord {
  return { ...job, leftoversEnder: job.leftoversEnder ? { ...job.leftoversEnder, gone: true } : null };
}
