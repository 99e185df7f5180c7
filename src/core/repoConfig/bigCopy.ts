/**
 * A big file copied within a time limit, and a sparse one (bug 160) with its
 * holes kept. On Linux, GNU `cp --reflink=auto` does both: it clones where the
 * file system can; with `--sparse=always` it finds a sparse file's data with
 * SEEK_DATA/SEEK_HOLE and skips the holes without reading them (a 16 GiB image
 * holding a few bytes: 15 ms), and a dense file stays dense (`--sparse=auto`
 * makes holes only where the file has them). It reads and writes the two files
 * Paddock opened (passed as its descriptors 3 and 4), so it copies what was
 * checked, and it is killed at the limit, where Node cannot cancel a copy of
 * its own: a big dense copy took as long as it took, while a sparse one of the
 * same size failed at 10 minutes (the second review of bug 160). Where there
 * is no such `cp` (macOS, busybox), a sparse file is cloned where it can be,
 * else read whole and its zero runs left as holes: that costs the time of
 * reading the holes (4 GiB took 32 s on a loaded machine), though no disk.
 * That in-process copy is held to what is left of the same limit, looked at
 * between reads (one read that hangs is not cut short); it used to start over
 * with no limit after a `cp` that failed at minute 9 (the third review). It
 * runs only where `cp` is missing or wrote nothing (busybox's refuses
 * `--sparse`); a `cp` that failed partway (EIO, a full disk) fails the copy.
 * A clone or dense copy on macOS has no limit: Node cannot cancel it.
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
export const COPY_TIMEOUT_MS = 600_000;

/**
 * Copies the file `from` holds (`opened` reopens it) to `dest`, which must not exist, with the given
 * mode; with `sparse`, its holes are kept.
 */
export async function copyBig(from: fs.FileHandle, opened: string, dest: string, mode: number, sparse: boolean, timeoutMs = COPY_TIMEOUT_MS): Promise<void> {
  if (process.platform !== 'linux') {
    try {
      // A clone shares the blocks, holes included; libuv removes its own partial copy when it fails.
      await fs.copyFile(opened, dest, constants.COPYFILE_EXCL | (sparse ? constants.COPYFILE_FICLONE_FORCE : constants.COPYFILE_FICLONE));
      return;
    } catch (err) {
      if (!sparse || (err as NodeJS.ErrnoException)?.code === 'EEXIST') throw err;
    }
  }
  const to = await fs.open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  const limit = { at: Date.now() + timeoutMs, ms: timeoutMs };
  try {
    const exit = process.platform === 'linux' ? await copyWithCp(from.fd, to.fd, sparse, timeoutMs) : null;
    if (exit !== 0) {
      // A cp that wrote and failed met the file's own trouble: starting over would only meet it again, past the limit.
      if (exit !== null && (await to.stat()).size > 0) throw failure(`cp failed partway with exit code ${exit}`, 'EIO');
      await copyInProcess(from, to, sparse, limit);
    }
    await to.chmod(mode);
  } catch (err) {
    await to.close().catch(() => undefined);
    await fs.rm(dest, { force: true }).catch(() => undefined); // ours: made above with O_EXCL
    throw err;
  }
  await to.close();
}

/** cp's exit code (0: copied), or null when there is no cp to run. */
function copyWithCp(fromFd: number, toFd: number, sparse: boolean, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    // Its own /proc/self/fd/3 and 4 reopen the inodes Paddock holds (the destination exists: cp writes into it).
    const args = [sparse ? '--sparse=always' : '--sparse=auto', '--reflink=auto', '--', '/proc/self/fd/3', '/proc/self/fd/4'];
    const child = spawn('cp', args, { stdio: ['ignore', 'ignore', 'ignore', fromFd, toFd], env: { ...process.env, LC_ALL: 'C' } });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(timedOut(timeoutMs));
    }, timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1); // killed by a signal of someone else's: not copied
    });
  });
}

function timedOut(timeoutMs: number): Error {
  return failure(`the copy did not finish within ${Math.max(1, Math.round(timeoutMs / 1000))} s and was stopped`, 'ETIMEDOUT');
}

/**
 * Reads the whole file; with `sparse`, runs of zeros are not written, and the file is extended over
 * them at the end, leaving holes. Stopped between reads once `limit.at` has passed.
 */
async function copyInProcess(from: fs.FileHandle, to: fs.FileHandle, sparse: boolean, limit: { at: number; ms: number }): Promise<void> {
  await to.truncate(0); // whatever a cp that wrote nothing may have sized
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = 0;
  for (;;) {
    if (Date.now() > limit.at) throw timedOut(limit.ms);
    const { bytesRead } = await from.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    for (let at = 0; at < bytesRead; at += RUN_BYTES) {
      const piece = chunk.subarray(at, Math.min(at + RUN_BYTES, bytesRead));
      if (!sparse || !piece.equals(ZEROS.subarray(0, piece.length))) await to.write(piece, 0, piece.length, position + at);
    }
    position += bytesRead;
  }
  await to.truncate(position);
}
