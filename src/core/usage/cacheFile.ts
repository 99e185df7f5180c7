/**
 * The figures' cache files (usage cursors, the ended agents' figures): read
 * through a schema and rebuilt when they cannot be, so a file over the size
 * limit is one to rebuild, not one to hold in memory; replaced without a lock
 * (two writers each leave a whole file).
 */
import { closeSync, fstatSync, openSync, promises as fsp, readFileSync } from 'node:fs';
import { tempPathFor } from '../store/durable';

/** The file's text, or null when it is over `maxBytes`. Throws what opening or reading throws. */
export async function readSmallFile(path: string, maxBytes: number): Promise<string | null> {
  const handle = await fsp.open(path, 'r');
  try {
    if ((await handle.stat()).size > maxBytes) return null;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** readSmallFile with blocking calls: for a one-shot command reading many (through the thread pool each costs several times more). */
export function readSmallFileSync(path: string, maxBytes: number): string | null {
  const fd = openSync(path, 'r');
  try {
    if (fstatSync(fd).size > maxBytes) return null;
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces the file with `text` (a temp file renamed over it). 'wx' in an existing folder: a job folder
 * removed meanwhile (the agent forgotten) is not made again. False when it was not written.
 */
export async function replaceCacheFile(path: string, text: string): Promise<boolean> {
  const temp = tempPathFor(path);
  try {
    await fsp.writeFile(temp, text, { flag: 'wx', mode: 0o600 });
    await fsp.rename(temp, path);
    return true;
  } catch {
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    return false;
  }
}
