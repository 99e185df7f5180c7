/**
 * The worker's socket file at its public path, handled so that no file but the worker's own, or a
 * socket provably dead, is ever removed there. A Node listener bound to a path unlinks that path
 * when it closes (libuv's uv__pipe_close, also at a natural exit), whatever is there by then: so the
 * listener binds to a private name beside the path, and the file is linked (or renamed) into place.
 * Its close then removes only the private name, long gone; the public path is removed only by
 * `removeIfOwn`, which compares device and inode first.
 */
import { linkSync, lstatSync, renameSync, Stats, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { failure } from '../common/errors';
import { checkSocketPath } from '../protocol/runtimeDir';
import { asideName } from '../protocol/asideSockets';
import { FileId, isSameFile } from '../protocol/fileIdentity';

export function lstatIfThere(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export { probeSocket, type SocketProbe } from '../protocol/socketProbe';

/**
 * A private name beside `path`, no longer than it (socket paths are short), for a listener to bind to.
 * It names this process (asideSockets.ts): a name left by a worker killed before it was linked into
 * place is then removed by whoever sweeps the directory, once that process is gone.
 */
export function asidePath(path: string): string {
  return checkSocketPath(join(dirname(path), asideName(process.pid, Math.max(basename(path).length - 1, 12))));
}

/**
 * Puts the socket bound at `aside` at `path`. With `replacing` (a file judged dead or not a socket),
 * only that very file is replaced, at once (rename); without, only an empty path is taken (link), so
 * a file put there meanwhile is never touched. Returns false when the path is no longer as judged.
 */
export function placeSocket(aside: string, path: string, replacing?: FileId): boolean {
  if (replacing) {
    if (!isSameFile(lstatIfThere(path), replacing)) return false;
    renameSync(aside, path);
    return true;
  }
  try {
    linkSync(aside, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links to sockets: a rename, once the path is seen empty.
    if (lstatIfThere(path)) return false;
    renameSync(aside, path);
    return true;
  }
  removeQuietly(aside);
  return true;
}

/** Removes the worker's socket file at `path` only if it is still that file. */
export function removeIfOwn(path: string, own: FileId | undefined): void {
  try {
    if (isSameFile(lstatIfThere(path), own)) unlinkSync(path);
  } catch {
    // unreadable or gone meanwhile: not the worker's to remove
  }
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/** The startup refusals: a socket a process may serve, or a file that is not a socket. */
export function refusal(path: string, found: Stats): Error {
  return found.isSocket()
    ? failure(`Another process is already serving the control socket ${path}.`)
    : failure(`${path} exists and is not a socket; refusing to replace it.`);
}
