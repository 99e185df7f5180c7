/**
 * One untracked file copied into a new worktree (`copy`, `.worktreeinclude`),
 * without costing more disk than the original. A sparse file (a VM image, a
 * database preallocated with holes) holds far fewer blocks than its size; a
 * plain copy writes its holes as zeros, so a 100 GB image using 1 MB filled
 * the disk, and took minutes, at every start (bug 160). Such a file is cloned
 * where the file system can (btrfs, XFS, APFS), else copied with its holes
 * kept (bigCopy.ts). On Linux a big file, sparse or dense, is copied by a `cp`
 * child killed at one time limit (10 minutes); a small one is copied in
 * moments in-process. A file under a mount point inside the repository is
 * looked at and copied by the placement's helper child instead, killed at its
 * limit (smallCopy.ts), so a hung sshfs or NFS mount fails the start in one
 * sentence (bug 214); a big one there is opened again here after the child's
 * look, and a mount that hangs in those moments still holds the start.
 *
 * The source is opened first, without blocking and without following a
 * symlink, and looked at with fstat; on Linux every copy then reads that very
 * file through /proc/self/fd (the same inode), never the path again. A FIFO or
 * a link put in the file's place after the listing's look is refused at once,
 * where an open by path waited for a writer that never came and held the start
 * for good (the review of bug 160: not even `process.exit` ended it).
 */
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import { COPY_TIMEOUT_MS, copyBig } from './bigCopy';
import { refusedRead } from './unreadable';
import type { Copier } from './smallCopy';

/** Smaller files are copied whole: a hole is worth keeping from this size (a small file's inline data counts as dense). */
const SPARSE_FROM = 128 * 1024;
/** From this size a dense copy may take long enough to need a limit (a database, an image); below it, a spawn would cost more than the copy. */
export const TIMED_FROM = 8 * 1024 * 1024;
const NOT_REGULAR = 'not a regular file';

/** Copies `source` (a regular file when listed) to `dest`, which must not exist; the mode is kept. Null, or why it was not copied. */
export async function copyRegularFile(source: string, dest: string, timeoutMs = COPY_TIMEOUT_MS): Promise<string | null> {
  let from: fs.FileHandle;
  try {
    from = await fs.open(source, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    return refusedOrThrow(err);
  }
  try {
    const stat = await from.stat();
    if (!stat.isFile()) return NOT_REGULAR;
    const opened = openedPath(from, source);
    const sparse = isSparse(stat);
    if (!sparse && (process.platform !== 'linux' || stat.size < TIMED_FROM)) {
      // libuv gives the copy the source's mode itself (fchmod after open, past the umask).
      await fs.copyFile(opened, dest, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      return null;
    }
    await copyBig(from, opened, dest, stat.mode & 0o7777, sparse, timeoutMs);
    return null;
  } finally {
    await from.close();
  }
}

/**
 * Copies `source`, which lies under a mount point, through the placement's helper child, its lstat
 * included (bug 214). Null, why it was not copied, or the text of the symlink found there.
 */
export async function copyFromMount(copier: Copier, source: string, dest: string, timeoutMs = COPY_TIMEOUT_MS): Promise<string | null | { linkText: string }> {
  const outcome = await copier.copy({ source, dest, sparseFrom: SPARSE_FROM, timedFrom: TIMED_FROM });
  if ('copied' in outcome) return null;
  if ('link' in outcome) return { linkText: outcome.link };
  if ('notRegular' in outcome) return NOT_REGULAR;
  if ('code' in outcome) return refusedOrThrow(Object.assign(new Error(outcome.message), { code: outcome.code }));
  return copyRegularFile(source, dest, timeoutMs); // big or sparse: opened again here; cp copies it under the long limit
}

/** Why a failed open leaves the file out, or the error itself (thrown: it fails the start). */
function refusedOrThrow(err: unknown): string {
  // O_NOFOLLOW: a symlink put in the file's place (to a device, a FIFO, outside the repository).
  if ((err as NodeJS.ErrnoException)?.code === 'ELOOP') return NOT_REGULAR;
  // A file this user may not read, named or reached through a copied link: left out, the start goes on.
  const refused = refusedRead(err);
  if (refused === null) throw err;
  return refused;
}

/**
 * A path that opens the file `from` holds: on Linux its /proc/self/fd entry, which reopens that
 * inode whatever now sits at the path. Elsewhere (macOS) the path itself: there, a FIFO swapped in
 * between the fstat and the copy's own open can still hold the start.
 */
export function openedPath(from: fs.FileHandle, source: string): string {
  return process.platform === 'linux' ? `/proc/self/fd/${from.fd}` : source;
}

/** Fewer blocks than its size needs: it has holes. */
function isSparse(s: { size: number; blocks: number }): boolean {
  return s.size > SPARSE_FROM && s.blocks * 512 < s.size;
}
