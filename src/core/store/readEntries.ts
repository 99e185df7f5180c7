/**
 * Reading many records without blocking the caller's event loop: the window's
 * agents model reads here (the extension host must stay responsive), where
 * `JobStore.list` reads each record synchronously for the CLI's speed. A record
 * whose owner looks dead is handed to `JobStore.tryRead`, which reconciles it
 * under the lock, so the two paths agree on every record.
 */
import * as fs from 'node:fs';
import type { JobEntry, JobStore } from './jobStore';
import { judgeOwnership } from './ownership';
import { isJobId, StoreLayout } from './paths';
import { parseRecordText } from './records';

/** Reads in flight: enough to keep libuv's thread pool busy (measured: 1,000 records in ~25–35 ms at 32 or more, ~50 at 8). */
const READ_CONCURRENCY = 32;
/** As in JobStore.list: a job folder without a record younger than this is a create in progress. */
const CREATE_GRACE_MS = 30_000;

/** Every job in the store (unreadable ones with their reason), or only `ids` when given; each read asynchronously. */
export async function readEntries(store: JobStore, ids?: readonly string[]): Promise<JobEntry[]> {
  const layout = new StoreLayout(store.home);
  const listing = ids === undefined;
  let wanted: string[];
  if (ids) wanted = ids.filter(isJobId);
  else {
    try {
      wanted = (await fs.promises.readdir(layout.jobsDir)).filter(isJobId);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
  const entries: (JobEntry | undefined)[] = new Array(wanted.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < wanted.length; i = next++) entries[i] = await readEntry(store, layout, wanted[i], listing);
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, wanted.length) }, worker));
  return entries.filter((e): e is JobEntry => e !== undefined);
}

async function readEntry(store: JobStore, layout: StoreLayout, id: string, listing: boolean): Promise<JobEntry | undefined> {
  let text: string;
  try {
    text = await readText(layout.recordFile(id));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return { id, ok: false, reason: `it cannot be read (${code ?? String(err)})` };
    if (!listing) return { id, ok: false, reason: 'no such agent' };
    try {
      const age = Date.now() - (await fs.promises.stat(layout.jobDir(id))).mtimeMs;
      return age < CREATE_GRACE_MS ? undefined : { id, ok: false, reason: 'it has no record (its creation was interrupted)' };
    } catch {
      return undefined;
    }
  }
  const loaded = parseRecordText(id, text);
  if (loaded.kind === 'unreadable') return { id, ok: false, reason: loaded.reason };
  if (loaded.kind === 'missing') return { id, ok: false, reason: 'no such agent' };
  // A dead owner: let the store fix the record (under its lock, exactly once).
  if (judgeOwnership(loaded.job)) return store.tryRead(id);
  return { id, ok: true, job: loaded.job };
}

/**
 * fs.readFile with a callback: in Node 20, fs.promises.readFile takes about twice as long for small
 * files (1,000 records: ~60–70 ms against ~25–35 ms, measured), and a window's full reload reads them all.
 */
function readText(file: string): Promise<string> {
  return new Promise((resolve, reject) => fs.readFile(file, 'utf8', (err, text) => (err ? reject(err) : resolve(text))));
}
