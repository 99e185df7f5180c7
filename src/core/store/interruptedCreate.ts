/**
 * A job folder without a record: a create in progress, or one whose process died between claiming
 * the id and committing the record. Nothing ever ran for such a job (no worktree, branch or worker
 * exists before the record does), so once no one is creating it, its folder may go — but only
 * while it holds nothing but what a create makes first, so a folder whose record was lost some
 * other way (it has a timeline, output, evidence) stays, shown as unreadable.
 */
import * as fs from 'node:fs';
import { failure, type PaddockError } from '../common/errors';
import { TEMP_PREFIX } from './durable';
import type { JobEntry } from './jobReader';
import { EVIDENCE_DIR, OUTPUT_DIR, RECORD_FILE, StoreLayout } from './paths';

/** A job folder without a record younger than this is a create in progress, not damage. */
export const CREATE_GRACE_MS = 30_000;

export const INTERRUPTED_CREATE_REASON = 'it has no record (its creation was interrupted)';

/** What a person can do about such a leftover: the forget that removes it (or says why it stays). */
export function forgetHint(id: string): string {
  return `paddock forget ${id} removes it`;
}

/**
 * Why `id` has no record although its place in `jobs/` is taken (a folder without a record, or a
 * plain file), or undefined when nothing is there: every command says such an agent exists and is
 * unreadable, as `list` does, never "no such agent" (bug 50).
 */
export function recordlessReason(layout: StoreLayout, id: string, now = Date.now()): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(layout.jobDir(id));
  } catch {
    return undefined;
  }
  return recordlessReasonOf(id, st, now);
}

/** The reason for what `st` says is in `id`'s place in `jobs/` (see recordlessReason). */
function recordlessReasonOf(id: string, st: fs.Stats, now: number): string {
  if (!st.isDirectory()) return `its folder is ${kindOf(st)}, so it has no record (its creation was interrupted); ${forgetHint(id)}`;
  if (now - st.mtimeMs < CREATE_GRACE_MS) return `it has no record yet (its creation is under way, or was interrupted); if it stays so, ${forgetHint(id)}`;
  return `${INTERRUPTED_CREATE_REASON}; ${forgetHint(id)}`;
}

/** The error for a read of `id` that found no record: "no such agent" (bad input), or the agent is there but unreadable. */
export function missingRecord(layout: StoreLayout, id: string): PaddockError {
  const recordless = recordlessReason(layout, id);
  return recordless ? failure(`Agent ${id} is unreadable: ${recordless}.`, 'UNREADABLE') : failure(`No agent ${id} exists.`, 'NOT_FOUND');
}

function kindOf(st: fs.Stats): string {
  if (st.isFile()) return 'a plain file';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a folder';
}

/** A listed folder without a record: skipped while young (a create in progress), then shown. */
export async function interruptedCreateEntry(layout: StoreLayout, id: string): Promise<JobEntry | undefined> {
  try {
    const st = await fs.promises.lstat(layout.jobDir(id));
    // A create makes a folder: anything else in its place is never one in progress, and shows at once.
    if (!st.isDirectory()) return { id, ok: false, reason: recordlessReasonOf(id, st, Date.now()), interruptedCreate: true };
    return Date.now() - st.mtimeMs < CREATE_GRACE_MS ? undefined : { id, ok: false, reason: INTERRUPTED_CREATE_REASON, interruptedCreate: true };
  } catch {
    return undefined;
  }
}

/**
 * Why the folder of `id` must stay, or undefined when it is an interrupted create's leftover that may
 * be removed. The caller holds the job's operation lock (a live create holds it from before its
 * record exists), so only a create that died, or one stalled before taking that lock for longer
 * than the grace, is judged here.
 */
export async function interruptedCreateBlocker(layout: StoreLayout, id: string, now = Date.now()): Promise<string | undefined> {
  const dir = layout.jobDir(id);
  let st: fs.Stats;
  try {
    st = await fs.promises.lstat(dir);
  } catch {
    return `No agent ${id} exists.`;
  }
  // Not a folder: no create made it, and it holds nothing of an agent (no record, no worktree named).
  if (!st.isDirectory()) return undefined;
  if (await exists(layout.recordFile(id))) return `Agent ${id} has a record: it is not an interrupted creation.`;
  if (now - st.mtimeMs < CREATE_GRACE_MS) return `Agent ${id} is still being created; try again in a moment.`;
  const entries = await fs.promises.readdir(dir, { withFileTypes: true });
  const foreign: string[] = [];
  for (const entry of entries) if (!(await isCreateSkeleton(dir, entry))) foreign.push(entry.name);
  if (foreign.length > 0) {
    const names = `${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}`;
    return `Agent ${id} has no record but holds ${names}: it is left on disk for you to look at.`;
  }
  return undefined;
}

/** What a create makes before its record: the empty output and evidence folders, the record's temp file. */
async function isCreateSkeleton(dir: string, entry: fs.Dirent): Promise<boolean> {
  if (entry.isFile()) return entry.name.startsWith(`${TEMP_PREFIX}${RECORD_FILE}.`);
  if (!entry.isDirectory() || (entry.name !== OUTPUT_DIR && entry.name !== EVIDENCE_DIR)) return false;
  return (await fs.promises.readdir(`${dir}/${entry.name}`)).length === 0;
}

/** Whether `id` names a job folder that has no record (before any lock: the caller judges again under it). */
export async function isFolderWithoutRecord(home: string, id: string): Promise<boolean> {
  const layout = new StoreLayout(home);
  return (await lexists(layout.jobDir(id))) && !(await exists(layout.recordFile(id)));
}

function lexists(path: string): Promise<boolean> {
  return fs.promises.lstat(path).then(() => true, () => false);
}

function exists(path: string): Promise<boolean> {
  return fs.promises.access(path).then(() => true, () => false);
}
