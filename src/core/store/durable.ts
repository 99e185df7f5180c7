/**
 * Durable, atomic file replacement: write a temp file in the same directory,
 * fsync it, rename it over the target, fsync the directory. A reader sees the
 * old file or the new one, never a torn one, even if the writer is SIGKILLed.
 * (No imports beyond node: crash tests start this in hundreds of short-lived processes.)
 */
import { randomBytes } from '../common/lazyCrypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { makeDirsSync } from '../common/makeDirs';

/** Temp files of durable writes start with this; leftovers after a crash are swept. */
export const TEMP_PREFIX = '.tmp-';
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export function tempPathFor(target: string): string {
  return join(dirname(target), `${tempPrefixOf(target)}${process.pid}.${randomBytes(4).toString('hex')}`);
}

/**
 * Writes the temp file and fsyncs it; returns its path. The caller commits with `commitTemp`.
 * `mode` (under the umask) is the file's: the store's are private; a file git owns keeps git's
 * (0666 under the umask, as git writes its `.git` files).
 */
export async function writeTemp(target: string, data: string | Buffer, mode = FILE_MODE): Promise<string> {
  const temp = tempPathFor(target);
  const handle = await fs.promises.open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  return temp;
}

/**
 * Renames the temp file over the target and fsyncs the directory. Synchronous on
 * purpose: the caller checks that its lock still holds immediately before, with
 * no event-loop turn in between.
 */
export function commitTemp(temp: string, target: string): void {
  fs.renameSync(temp, target);
  fsyncDir(dirname(target));
}

export async function writeFileDurable(target: string, data: string | Buffer, mode = FILE_MODE): Promise<void> {
  const temp = await writeTemp(target, data, mode);
  try {
    commitTemp(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Makes the folder's entries (a rename, a new name) durable. A folder that can be written but not
 * read (mode -wx: a person's folder outside the store, as a linked worktree's) cannot be opened
 * for the fsync by any means, yet the rename in it has happened and is seen: reporting it failed
 * said a `.git` file *could not be linked* when it was. So a refused open (EACCES, EPERM) is
 * let pass: that change stands without the folder's fsync, as it would with any writer of such a
 * folder. The store's folders are its owner's and 0700, so none of its writes meets this; any
 * other failure (the fsync's own EIO) still throws.
 */
export function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return;
    throw err;
  }
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The start of the names `tempPathFor(target)` gives: the temp files of `target`'s writes, and of no other file's. */
function tempPrefixOf(target: string): string {
  return `${TEMP_PREFIX}${basename(target)}.`;
}

/**
 * Removes the temp files a crashed writer of `target` left beside it. Call only under the lock
 * that every writer of `target` holds, so that none of them can be mid-write. Other files' temp
 * files in the folder are left alone: their writers hold other locks (a job folder's review.json
 * and env.sealed are written under their own, or none), and sweeping all of them deleted a review
 * comment's temp file between its write and its rename, so the comment was lost (bug 60).
 */
export function sweepTempFiles(target: string): number {
  const prefix = tempPrefixOf(target);
  const dir = dirname(target);
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    try {
      fs.rmSync(join(dir, name), { force: true });
      removed++;
    } catch {
      // Another sweeper got there first.
    }
  }
  return removed;
}

export function ensureDir(dir: string): void {
  makeDirsSync(dir, DIR_MODE);
}

/**
 * The same durable replacement without leaving the event loop: for small,
 * rare writes (the store policy when a setting changes, the `paddock` launcher)
 * that readers must see before the writer's next step. `mode` as for `writeTemp`.
 */
export function writeFileDurableSync(target: string, data: string, mode = FILE_MODE): void {
  const temp = tempPathFor(target);
  const fd = fs.openSync(temp, 'wx', mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    commitTemp(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}
