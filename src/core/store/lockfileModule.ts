/**
 * proper-lockfile, loaded on first use. Loading it costs more than a whole
 * `paddock list` of a small store, and reading the store takes no lock: only
 * writers pay for it. It is always given `privateLockFs()`: the graceful-fs it
 * would default to is not bundled (esbuild.config.mjs, `noGracefulFs`).
 */
import * as fs from 'node:fs';
import type * as Lockfile from 'proper-lockfile';

let loaded: typeof Lockfile | undefined;

export function lockfile(): typeof Lockfile {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('proper-lockfile') as typeof Lockfile;
  return loaded;
}

let privateFs: typeof fs | undefined;

/**
 * The file system proper-lockfile is given: its lock folders are made private
 * like the rest of the store (it would make them 0777 less the umask). Made on
 * first use: copying `fs` reads its `promises` getter, which loads Node's
 * promise-based fs and the stream and readline modules it pulls in, and a
 * reader (`paddock list`) takes no lock.
 */
export function privateLockFs(): typeof fs {
  privateFs ??= {
    ...fs,
    mkdir: (dir: string, callback: (err: NodeJS.ErrnoException | null) => void) => fs.mkdir(dir, { mode: 0o700 }, callback),
    mkdirSync: (dir: string) => fs.mkdirSync(dir, { mode: 0o700 }),
  } as typeof fs;
  return privateFs;
}

/** Loads both now: for a process that waits anyway before its first lock (a gated worker). */
export function loadLockModules(): void {
  lockfile();
  privateLockFs();
}
