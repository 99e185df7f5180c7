/**
 * proper-lockfile, loaded on first use. Loading it (and graceful-fs, which it
 * pulls in and which patches `fs`) costs more than a whole `paddock list` of a
 * small store, and reading the store takes no lock: only writers pay for it.
 */
import type * as Lockfile from 'proper-lockfile';

let loaded: typeof Lockfile | undefined;

export function lockfile(): typeof Lockfile {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('proper-lockfile') as typeof Lockfile;
  return loaded;
}
