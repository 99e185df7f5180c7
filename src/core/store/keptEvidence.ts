/**
 * The store's `kept/` folder: the evidence of agents removed from the list whose archives held work
 * (ignored files, nested repositories' git dirs — for those the only copy). Forgetting an agent
 * moves its evidence here with a copy of its record; `prune --snapshots` lists these folders and
 * deletes them, as it deletes a listed agent's archives, so they never pile up out of every command's
 * reach.
 */
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from '../common/lazyCrypto';
import { DIR_MODE, fsyncDir } from './durable';
import { REMOVING_PREFIX } from './forgetRecord';
import { StoreLayout, isJobId } from './paths';
import { loadRecord } from './records';
import type { JobRecord } from './schema';
import { makeDirs } from '../common/makeDirs';

/** The record copy kept beside the evidence, saying whose it is. */
const RECORD_COPY = 'job.json';

/**
 * Moves the agent's evidence folder (its archives, inventory and patch), with a copy of its record,
 * out of the job folder to `kept/<id>` before the folder is removed: forgetting an agent drops it from
 * the list, never the only copy of its work. One rename, made durable.
 */
export async function keepEvidence(home: string, id: string): Promise<string> {
  const layout = new StoreLayout(home);
  const evidence = layout.evidenceDir(id);
  await fs.copyFile(layout.recordFile(id), join(evidence, RECORD_COPY));
  const target = await freeKeptName(layout, id);
  await fs.rename(evidence, target);
  fsyncDir(dirname(target));
  return target;
}

/** `kept/<id>`, or `kept/<id>.<ms>` beside one kept before (a restore, a new cleanup and a second forget). */
async function freeKeptName(layout: StoreLayout, id: string): Promise<string> {
  const kept = layout.keptDir(id);
  await makeDirs(dirname(kept), DIR_MODE);
  const free = await fs.lstat(kept).then(
    () => false,
    () => true,
  );
  return free ? kept : `${kept}.${Date.now()}`;
}

export type KeptFolder =
  | { ok: true; id: string; folder: string; job: JobRecord }
  /** Its record copy is missing or unreadable: left as it is, and said. */
  | { ok: false; id: string; folder: string; reason: string };

/**
 * Every kept folder (`kept/<id>`, or `kept/<id>.<ms>` beside an older one) with its record copy,
 * validated as any record is. A removal cut short (below) is finished on the way.
 */
export async function readKeptFolders(home: string): Promise<KeptFolder[]> {
  const dir = join(home, 'kept');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out: KeptFolder[] = [];
  for (const name of names.sort()) {
    const folder = join(dir, name);
    if (name.startsWith(REMOVING_PREFIX)) {
      await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
      continue;
    }
    const id = name.split('.')[0];
    const stat = await fs.lstat(folder).catch(() => null);
    if (!isJobId(id) || !stat?.isDirectory()) continue; // not a folder forget made: never Paddock's to delete
    const loaded = loadRecord(id, join(folder, RECORD_COPY));
    if (loaded.kind === 'ok' && loaded.job.id === id) out.push({ ok: true, id, folder, job: loaded.job });
    else out.push({ ok: false, id, folder, reason: loaded.kind === 'unreadable' ? loaded.reason : loaded.kind === 'ok' ? `its record copy is of agent ${loaded.job.id}` : 'its record copy is missing' });
  }
  return out;
}

/**
 * Deletes a kept folder: renamed out of `kept/` first (one durable step), so a deletion cut short
 * leaves no half folder that reads as an agent's kept evidence; the next read finishes it.
 */
export async function deleteKeptFolder(folder: string): Promise<void> {
  const doomed = join(dirname(folder), `${REMOVING_PREFIX}${randomBytes(4).toString('hex')}`);
  await fs.rename(folder, doomed);
  fsyncDir(dirname(folder));
  await fs.rm(doomed, { recursive: true, force: true });
}

/**
 * The whole folder of an agent whose record cannot be read (the damaged record, output, evidence),
 * moved to `kept/` by one durable rename: removing it from the list deletes nothing, since what it
 * holds cannot be told. Its change file goes, which drops its row in every window.
 */
export async function keepUnreadableFolder(home: string, id: string): Promise<string> {
  const layout = new StoreLayout(home);
  const target = await freeKeptName(layout, id);
  await fs.rename(layout.jobDir(id), target);
  fsyncDir(dirname(target));
  fsyncDir(layout.jobsDir);
  await fs.rm(layout.changeFile(id), { force: true });
  return target;
}
