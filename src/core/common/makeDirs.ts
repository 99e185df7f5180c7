/**
 * `mkdir -p` with an end (bug 113). Node 20's own (`mkdir` with `recursive: true`) loops for ever at
 * full CPU when mkdir(2) says ENOENT although the folder above exists (a PADDOCK_HOME under /proc:
 * `paddock start` hung, and it holds SIGTERM while it starts an agent, so only SIGKILL ended it).
 * Here each level is made by one plain mkdir, a folder already there is taken as it is, and the tries
 * are counted: ENOENT under a folder that exists is tried again a few times at most (another maker of
 * the same path may have made that folder just after our try), then said in one sentence, and a
 * folder removed under us as we go is made again a few times at most. Every created level gets `mode` (the
 * umask applied), as Node's does. Nothing but node here: durable.ts, which crash tests start in
 * hundreds of short-lived processes, uses it.
 */
import * as fs from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Tries beyond one per level: folders removed under us while we make them are made again this often. */
const SPARE_TRIES = 8;

/** Creates `dir` and every missing folder above it, each with `mode`; a folder already there is fine. */
export function makeDirsSync(dir: string, mode = 0o777): void {
  const levels = [resolve(dir)];
  let left = levels[0].split('/').length + SPARE_TRIES;
  while (levels.length > 0) {
    const level = levels[levels.length - 1];
    try {
      fs.mkdirSync(level, { mode });
      levels.pop();
    } catch (err) {
      if (--left < 0) throw notCreated(level, err);
      const next = afterFailure(level, err, isFolderSync);
      if (next === 'made') levels.pop();
      else if (next !== level) levels.push(next);
    }
  }
}

/** The async form of {@link makeDirsSync}. */
export async function makeDirs(dir: string, mode = 0o777): Promise<void> {
  const levels = [resolve(dir)];
  let left = levels[0].split('/').length + SPARE_TRIES;
  while (levels.length > 0) {
    const level = levels[levels.length - 1];
    try {
      await fs.promises.mkdir(level, { mode });
      levels.pop();
    } catch (err) {
      if (--left < 0) throw notCreated(level, err);
      const exists = await isFolder(level);
      const parentExists = await isFolder(dirname(level));
      const next = afterFailure(level, err, (p) => (p === level ? exists : parentExists));
      if (next === 'made') levels.pop();
      else if (next !== level) levels.push(next);
    }
  }
}

/**
 * What a failed mkdir of `level` leaves to do: 'made' (a folder is there), the folder above to make
 * first (ENOENT with it missing), or `level` again (ENOENT with it there). Anything else is thrown:
 * Node's own error (EEXIST for a file in the place, ENOTDIR for one on the way, EACCES…).
 */
function afterFailure(level: string, err: unknown, folderAt: (p: string) => boolean): 'made' | string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EEXIST' && folderAt(level)) return 'made';
  if (code !== 'ENOENT') throw err;
  const parent = dirname(level);
  if (parent === level) throw notCreated(level, err);
  // The folder above there now: made meanwhile by another maker of the same path (try this level
  // again), or one that takes no folder (/proc): the counted tries end that.
  return folderAt(parent) ? level : parent;
}

/**
 * ENOENT though the folder above exists (/proc, a FUSE file system), or folders removed under us again
 * and again. No errno code: what it says is said in full (a caller's errno words would say "it does not exist").
 */
function notCreated(level: string, err: unknown): Error {
  const again = (err as NodeJS.ErrnoException).code !== 'ENOENT' || !isFolderSync(dirname(level));
  const why = again ? 'the folders above it were removed as fast as they were made' : `${dirname(level)} takes no new folder in it`;
  return new Error(`${level} could not be created: ${why}`);
}

function isFolderSync(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

async function isFolder(p: string): Promise<boolean> {
  return fs.promises.stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
