/**
 * A sparse file (bug 160) copied with its holes kept. On Linux, GNU `cp
 * --sparse=always --reflink=auto` does it: it clones where the file system
 * can, else finds the data with SEEK_DATA/SEEK_HOLE and skips the holes
 * without reading them (a 16 GiB image holding a few bytes: 15 ms). It reads
 * and writes the two files Paddock opened (passed as its descriptors 3 and 4),
 * so it copies what was checked, and is stopped at a timeout. Where there is
 * no such `cp` (macOS, busybox), the file is cloned where it can be, else read
 * whole and its zero runs left as holes: that costs the time of reading the
 * holes (4 GiB took 32 s on a loaded machine), though no disk.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import { failure } from '../common/errors';

/** Zero runs this long (and aligned) become holes: a multiple of every usual block size. */
const RUN_BYTES = 128 * 1024;
/** Read at once: several runs, so the holes are read at disk speed rather than a call per run. */
const CHUNK_BYTES = 32 * RUN_BYTES;
const ZEROS = Buffer.alloc(RUN_BYTES);
/** A copy of real data may be big (a database): minutes, not forever. */
export const SPARSE_COPY_TIMEOUT_MS = 600_000;

/** Copies the file `from` holds (`opened` reopens it) to `dest`, which must not exist, with holes and the given mode. */
export async function copySparse(from: fs.FileHandle, opened: string, dest: string, mode: number, timeoutMs = SPARSE_COPY_TIMEOUT_MS): Promise<void> {
  if (process.platform !== 'linux') {
    try {
      // A clone shares the blocks, holes included; libuv removes its own partial copy when it fails.
      await fs.copyFile(opened, dest, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'EEXIST') throw err;
    }
  }
  const to = await fs.open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    if (process.platform !== 'linux' || !(await copyWithCp(from.fd, to.fd, timeoutMs))) {
      await to.truncate(0); // whatever a failed cp left
      await copyZeroRunsAsHoles(from, to);
    }
    await to.chmod(mode);
  } catch (err) {
    await to.close().catch(() => undefined);
    await fs.rm(dest, { force: true }).catch(() => undefined); // ours: made above with O_EXCL
    throw err;
  }
  await to.close();
}

/** True when GNU cp copied it; false when it did not (not installed, no --sparse): the fallback then copies, or meets the same error itself. */
function copyWithCp(fromFd: number, toFd: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    // Its own /proc/self/fd/3 and 4 reopen the inodes Paddock holds (the destination exists: cp writes into it).
    const child = spawn('cp', ['--sparse=always', '--reflink=auto', '--', '/proc/self/fd/3', '/proc/self/fd/4'], {
      stdio: ['ignore', 'ignore', 'ignore', fromFd, toFd],
      env: { ...process.env, LC_ALL: 'C' },
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(failure(`the sparse copy did not finish within ${Math.max(1, Math.round(timeoutMs / 1000))} s and was stopped`, 'ETIMEDOUT'));
    }, timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') resolve(false);
      else reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

/** Reads the whole file; runs of zeros are not written, and the file is extended over them at the end, leaving holes. */
async function copyZeroRunsAsHoles(from: fs.FileHandle, to: fs.FileHandle): Promise<void> {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = 0;
  for (;;) {
    const { bytesRead } = await from.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    for (let at = 0; at < bytesRead; at += RUN_BYTES) {
      const piece = chunk.subarray(at, Math.min(at + RUN_BYTES, bytesRead));
      if (!piece.equals(ZEROS.subarray(0, piece.length))) await to.write(piece, 0, piece.length, position + at);
    }
    position += bytesRead;
  }
  await to.truncate(position);
}
