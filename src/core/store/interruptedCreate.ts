/**
 * A job folder without a record: a create in progress, or one whose process died between claiming
 * the id and committing the record. Nothing ever ran for such a job (no worktree, branch or worker
 * exists before the record does), so once no one is creating it, its folder may go — but only
 * while it holds nothing but what a create makes first, so a folder whose record was lost some
 * other way (it has a timeline, output, evidence) stays, shown as unreadable.
 */
import * as fs from 'node:fs';
import { TEMP_PREFIX } from './durable';
import type { JobEntry } from './jobReader';
import { EVIDENCE_DIR, OUTPUT_DIR, RECORD_FILE, StoreLayout } from './paths';

/** A job folder without a record younger than this is a create in progress, not damage. */
export const CREATE_GRACE_MS = 30_000;

export const INTERRUPTED_CREATE_REASON = 'it has no record (its creation was interrupted)';

/** A listed folder without a record: skipped while young (a create in progress), then shown. */
export async function interruptedCreateEntry(layout: StoreLayout, id: string): Promise<JobEntry | undefined> {
  try {
    const age = Date.now() - (await statMtime(layout.jobDir(id)));
    return age < CREATE_GRACE_MS ? undefined : { id, ok: false, reason: INTERRUPTED_CREATE_REASON, interruptedCreate: true };
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
  let mtimeMs: number;
  try {
    mtimeMs = await statMtime(dir);
  } catch {
    return `No agent ${id} exists.`;
  }
  if (await exists(layout.recordFile(id))) return `Agent ${id} has a record: it is not an interrupted creation.`;
  if (now - mtimeMs < CREATE_GRACE_MS) return `Agent ${id} is still being created; try again in a moment.`;
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
  return (await exists(layout.jobDir(id))) && !(await exists(layout.recordFile(id)));
}

function exists(path: string): Promise<boolean> {
  return fs.promises.access(path).then(() => true, () => false);
}

function statMtime(path: string): Promise<number> {
  return new Promise((resolve, reject) => fs.stat(path, (err, st) => (err ? reject(err) : resolve(st.mtimeMs))));
}
