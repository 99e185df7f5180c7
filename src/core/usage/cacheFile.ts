/**
 * The figures' cache files (usage cursors, the ended agents' figures): read
 * through a schema and rebuilt when they cannot be, so a file over the size
 * limit is one to rebuild, not one to hold in memory; replaced without a lock
 * (two writers each leave a whole file).
 */
import { promises as fsp } from 'node:fs';
import { tempPathFor } from '../store/durable';
import { readRegularText, readRegularTextSync } from '../store/regularFile';

/**
 * The file's text, or null when it holds more than `maxBytes` (counted while reading). Throws what
 * opening or reading throws, and for anything but a regular file (a FIFO, a device: regularFile.ts),
 * which the caller ignores like any unreadable cache.
 */
export function readSmallFile(path: string, maxBytes: number): Promise<string | null> {
  return readRegularText(path, maxBytes);
}

/** readSmallFile with blocking calls: for a one-shot command reading many (through the thread pool each costs several times more). */
export function readSmallFileSync(path: string, maxBytes: number): string | null {
  return readRegularTextSync(path, maxBytes);
}

/**
 * Replaces the file with `text` (a temp file renamed over it). 'wx' in an existing folder: a job folder
 * removed meanwhile (the agent forgotten) is not made again. False when it was not written. Not the
 * durable write (store/durable.ts) on purpose: a cache lost in a crash is rebuilt, and an fsync at
 * every sample of every agent would cost the disk what the cache saves.
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
