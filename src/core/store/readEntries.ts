/**
 * Reading many records without blocking the caller's event loop. A window's
 * store lists this way (the extension host must stay responsive: its agents
 * model, its coordinator's passes and operations), and the agents model reads
 * given ids here; a CLI process, which has no event loop to keep free, lists
 * with synchronous reads instead (`JobStoreOptions.blockingReads`, faster).
 * Both hand a record that needs reconciling to the store's `tryRead`, which
 * fixes it under the lock, so the two paths agree on every record.
 */
import { fsFailureWords } from '../common/fsErrors';
import * as fs from 'node:fs';
import { livenessOf, processTableSource, readProcStat, type StatSource } from '../proc/identity';
import { interruptedCreateEntry } from './interruptedCreate';
import type { JobEntry } from './jobReader';
import type { JobStore } from './jobStore';
import { checkRunnerGone } from './checkRunner';
import { leftoversEnderGone, leftoversStillRunning } from './leftoverCheck';
import { judgeOwnership } from './ownership';
import { isJobId, StoreLayout } from './paths';
import { parseRecordText } from './records';
import { isNotRegularFile, notRegularReason, readRegularText } from './regularFile';
import { unreadableEntry } from './unreadableEntry';
import { isTerminalState, type JobRecord } from './schema';

/** Reads in flight: enough to keep libuv's thread pool busy (measured: 1,000 records in ~25–35 ms at 32 or more, ~50 at 8). */
export const READ_CONCURRENCY = 32;

/**
 * Whether reading `job` must reconcile it first: its owner is gone, or a leftover it lists has exited.
 * `stats` may be a table read once for a whole listing: reconciling judges again before it writes.
 */
function needsReconciling(job: JobRecord, stats: StatSource = readProcStat): boolean {
  return judgeOwnership(job, (identity) => livenessOf(identity, stats)) !== undefined || leftoversStillRunning(job, stats) !== undefined || leftoversEnderGone(job, stats) || checkRunnerGone(job, stats);
}

/** Whether `job` names processes at all: an ended agent without leftovers or a check under way needs no look at the system. */
function namesProcesses(job: JobRecord): boolean {
  return !isTerminalState(job.lifecycle.state) || (job.leftovers?.length ?? 0) > 0 || !!job.leftoversEnder || (job.check?.runner ?? null) !== null;
}

/**
 * `needsReconciling` for many records: the process table is read once, when the first record that
 * names processes asks (a listing of ended agents asks nothing). Synchronous where a process's stat
 * is a cheap read (a CLI listing 1,000 records makes no promise per record).
 */
export function reconcileCheck(): (job: JobRecord) => boolean | Promise<boolean> {
  let table: StatSource | Promise<StatSource> | undefined;
  return (job) => {
    if (!namesProcesses(job)) return false;
    table ??= processTableSource();
    if (typeof table === 'function') return needsReconciling(job, table);
    return table.then((stats) => needsReconciling(job, (table = stats)));
  };
}

/** Hands a record that needs reconciling (as it was just read) back to the store, which fixes it under its lock. */
export type Reconcile = (id: string, job: JobRecord) => Promise<JobEntry>;

/** Every job in the store (unreadable ones with their reason), or only `ids` when given; each read asynchronously. */
export function readEntries(store: JobStore, ids?: readonly string[]): Promise<JobEntry[]> {
  return readEntriesFrom(new StoreLayout(store.home), (id) => store.tryRead(id), ids);
}

/** The ids of the job folders in the store (none when it has no jobs folder yet). */
export async function listedJobIds(layout: StoreLayout): Promise<string[]> {
  try {
    return (await readDir(layout.jobsDir)).filter(isJobId);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The same, for the store's own reader, whose `reconcile` fixes the record it is given. Unordered. */
export async function readEntriesFrom(layout: StoreLayout, reconcile: Reconcile, ids?: readonly string[]): Promise<JobEntry[]> {
  const listing = ids === undefined;
  const wanted = ids ? ids.filter(isJobId) : await listedJobIds(layout);
  const entries: (JobEntry | undefined)[] = new Array(wanted.length);
  const check = reconcileCheck();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < wanted.length; i = next++) entries[i] = await readEntry(layout, reconcile, check, wanted[i], listing);
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, wanted.length) }, worker));
  return entries.filter((e): e is JobEntry => e !== undefined);
}

async function readEntry(layout: StoreLayout, reconcile: Reconcile, check: ReturnType<typeof reconcileCheck>, id: string, listing: boolean): Promise<JobEntry | undefined> {
  let text: string;
  try {
    text = await readText(layout.recordFile(id));
  } catch (err) {
    if (isNotRegularFile(err)) return unreadableEntry(layout, id, notRegularReason(err));
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return unreadableEntry(layout, id, `it cannot be read: ${fsFailureWords(err)}`);
    if (!listing) return { id, ok: false, reason: 'no such agent' };
    return interruptedCreateEntry(layout, id);
  }
  const loaded = parseRecordText(id, text);
  if (loaded.kind === 'unreadable') return unreadableEntry(layout, id, loaded.reason);
  if (loaded.kind === 'missing') return { id, ok: false, reason: 'no such agent' };
  if (await check(loaded.job)) return reconcile(id, loaded.job);
  return { id, ok: true, job: loaded.job };
}

// The callback forms: in Node 20, fs.promises.readFile takes about twice as long for small files
// (1,000 records: ~60–70 ms against ~25–35 ms, measured), and `fs.promises` loads Node's
// promise-based fs (and streams, readline) into a CLI that would not otherwise need it.
// readRegularText uses them too (open, fstat, read, close: the hops fs.readFile makes).

async function readText(file: string): Promise<string> {
  return (await readRegularText(file)) ?? '';
}

function readDir(dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => fs.readdir(dir, (err, names) => (err ? reject(err) : resolve(names))));
}
