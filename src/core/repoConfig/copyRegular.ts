/**
 * One untracked file copied into a new worktree (`copy`, `.worktreeinclude`),
 * without costing more disk than the original. A sparse file (a VM image, a
 * database preallocated with holes) holds far fewer blocks than its size; a
 * plain copy writes its holes as zeros, so a 100 GB image using 1 MB filled
 * the disk, and took minutes, at every start (bug 160). Such a file is cloned
 * where the file system can (btrfs, XFS, APFS), else copied with its zero
 * runs left as holes, like `cp --sparse=auto`.
 *
 * The sparse copy reads the file it opened (non-blocking, then looked at with
 * fstat): a FIFO put in its place after the listing's look opens at once and
 * is refused instead of holding the start until a writer comes.
 */
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';

/** Zero runs this long (and aligned) become holes: a multiple of every usual block size. */
const RUN_BYTES = 128 * 1024;
const ZEROS = Buffer.alloc(RUN_BYTES);

/** Copies `source` (a regular file, by lstat) to `dest`, which must not exist; the mode is kept. Null, or why it was not copied. */
export async function copyRegularFile(source: string, dest: string, looked: { size: number; blocks: number }): Promise<string | null> {
  if (!isSparse(looked)) {
    await fs.copyFile(source, dest, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    // libuv gives the copy the source's mode itself (fchmod after open, past the umask).
    return null;
  }
  try {
    // A clone shares the blocks, holes included; where cloning is not supported, copy the data alone.
    await fs.copyFile(source, dest, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE);
    return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'EEXIST') throw err;
  }
  return copySparse(source, dest);
}

/** Fewer blocks than its size needs: it has holes (a small file's inline data counts as dense). */
function isSparse(s: { size: number; blocks: number }): boolean {
  return s.size > RUN_BYTES && s.blocks * 512 < s.size;
}

async function copySparse(source: string, dest: string): Promise<string | null> {
  const from = await fs.open(source, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = await from.stat();
    if (!stat.isFile()) return 'not a regular file';
    const to = await fs.open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      const chunk = Buffer.alloc(RUN_BYTES);
      let position = 0;
      for (;;) {
        const { bytesRead } = await from.read(chunk, 0, RUN_BYTES, position);
        if (bytesRead === 0) break;
        const piece = chunk.subarray(0, bytesRead);
        // Zeros are not written: the file is extended over them at the end, leaving a hole.
        if (!piece.equals(ZEROS.subarray(0, bytesRead))) await to.write(piece, 0, bytesRead, position);
        position += bytesRead;
      }
      await to.truncate(position);
      await to.chmod(stat.mode & 0o7777);
    } catch (err) {
      await to.close().catch(() => undefined);
      await fs.rm(dest, { force: true }).catch(() => undefined); // ours: made above with O_EXCL
      throw err;
    }
    await to.close();
    return null;
  } finally {
    await from.close();
  }
}
