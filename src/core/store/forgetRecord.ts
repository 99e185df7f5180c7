/**
 * Drops an agent's folder from the store ("Remove from List"). The folder is
 * first renamed out of the listing (only ids are listed) in one atomic step, so
 * a reader that races the removal sees "no such agent", never a half-deleted
 * job, and a removal cut short (killed, an I/O error) leaves nothing that lists
 * as an unreadable agent; removing its change file tells every watcher.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from '../common/lazyCrypto';
import { DIR_MODE, FILE_MODE } from './durable';
import { interruptedCreateBlocker } from './interruptedCreate';
import { StoreLayout } from './paths';
import { makeDirs } from '../common/makeDirs';

/** The name a folder being removed takes in `jobs/`: never a job id (they have no dots). */
export const REMOVING_PREFIX = '.removing-';
/** A folder being removed younger than this may still be in its remover's hands. */
const REMOVAL_GRACE_MS = 60_000;

export async function removeJobFolder(home: string, id: string): Promise<void> {
  const layout = new StoreLayout(home);
  await removeOutOfListing(layout, id);
  await fs.rm(layout.changeFile(id), { force: true });
}

/**
 * Removes the folder a create left when it died before its record, or says why it stays (see
 * `interruptedCreateBlocker`). The caller holds the job's operation lock. Such a job never had a
 * change file: one is written and removed so that every watcher drops its unreadable row.
 */
export async function removeInterruptedCreate(home: string, id: string): Promise<string | undefined> {
  const layout = new StoreLayout(home);
  const blocked = await interruptedCreateBlocker(layout, id);
  if (blocked) return blocked;
  await removeOutOfListing(layout, id);
  await makeDirs(layout.changesDir, DIR_MODE);
  await fs.writeFile(layout.changeFile(id), `${process.pid}:removed\n`, { mode: FILE_MODE });
  await fs.rm(layout.changeFile(id), { force: true });
  return undefined;
}

/**
 * Folders whose removal was cut short (the remover killed, or an I/O error half-way), older than
 * the grace: removed now. Returns the ids they belonged to. Nothing in them is an agent's work any
 * more: a folder is renamed for removal only once its agent was cleaned up, or never ran.
 */
export async function sweepRemovalLeftovers(home: string, now = Date.now()): Promise<string[]> {
  const layout = new StoreLayout(home);
  let names: string[];
  try {
    names = await fs.readdir(layout.jobsDir);
  } catch {
    return [];
  }
  const swept: string[] = [];
  for (const name of names.filter((n) => n.startsWith(REMOVING_PREFIX))) {
    const folder = join(layout.jobsDir, name);
    try {
      if (now - (await fs.stat(folder)).mtimeMs < REMOVAL_GRACE_MS) continue;
      await fs.rm(folder, { recursive: true, force: true });
      swept.push(name.slice(REMOVING_PREFIX.length).split('.')[0]);
    } catch {
      // Gone meanwhile, or still failing: the next sweep tries again.
    }
  }
  return swept;
}

/** The rename takes the agent out of every listing at once; the removal after it may be cut short (see `sweepRemovalLeftovers`). */
async function removeOutOfListing(layout: StoreLayout, id: string): Promise<void> {
  const doomed = join(layout.jobsDir, `${REMOVING_PREFIX}${id}.${randomBytes(4).toString('hex')}`);
  try {
    await fs.rename(layout.jobDir(id), doomed);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // Renaming keeps the folder's time: mark when its removal began, for the sweep's grace.
  const at = new Date();
  await fs.utimes(doomed, at, at).catch(() => undefined);
  await fs.rm(doomed, { recursive: true, force: true }).catch(() => undefined);
}
