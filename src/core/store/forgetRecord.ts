/**
 * Drops an agent's folder from the store ("Remove from List"). The record goes
 * first, so a reader that races the removal sees "no such agent", never a
 * half-deleted job; removing its change file tells every watcher.
 */
import { promises as fs } from 'node:fs';
import { StoreLayout } from './paths';

export async function removeJobFolder(home: string, id: string): Promise<void> {
  const layout = new StoreLayout(home);
  await fs.rm(layout.recordFile(id), { force: true });
  await fs.rm(layout.jobDir(id), { recursive: true, force: true });
  await fs.rm(layout.changeFile(id), { force: true });
}
