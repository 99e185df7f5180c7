/**
 * Opening the store's files so that one that is not a regular file cannot hang or exhaust a process
 * (docs/reliability.md, bug 45). A FIFO put where a record, cache, log or signal file belongs blocked
 * `open(2)` for ever (a read waits for a writer, a write for a reader), and a symlink to /dev/zero
 * was read until memory ran out. Every open here is non-blocking (`O_NONBLOCK`: a FIFO opens at once
 * for reading, and fails with ENXIO for writing when nothing reads it), the opened descriptor is
 * checked with one fstat (no lstat before the open, so no extra call and no race), and anything but a
 * regular file is refused with {@link NotRegularFileError} and left as it is. Reads stop at a byte cap
 * counted while reading, never trusting the size fstat gives (a file can grow, or say 0 and go on).
 */
import * as fs from 'node:fs';
import { basename } from 'node:path';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_APPEND, O_NONBLOCK } = fs.constants;

/** How a file is opened: to read, to append (created when missing), to read and append, or to write (created, emptied). */
export type OpenMode = 'r' | 'a' | 'a+' | 'w';

const FLAGS: Record<OpenMode, number> = {
  r: O_RDONLY | O_NONBLOCK,
  a: O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK,
  'a+': O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK,
  // No O_TRUNC: the file is emptied (ftruncate) only once it is known to be a regular file.
  w: O_WRONLY | O_CREAT | O_NONBLOCK,
};

/** The error for a path that names something other than a regular file. `code` is 'ENOTREG'. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly file: string,
    /** What it is instead: "a FIFO", "a character device", … */
    readonly what: string,
  ) {
    super(`${basename(file)} is not a regular file (${what}); it was left as it is`);
    this.name = 'NotRegularFileError';
  }
}

export function isNotRegularFile(err: unknown): err is NotRegularFileError {
  return err instanceof NotRegularFileError;
}

/** The reason to show for a file that could not be opened as a regular file: "it is not a regular file (a FIFO)". */
export function notRegularReason(err: NotRegularFileError): string {
  return `it is not a regular file (${err.what})`;
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'something else';
}

/**
 * ENXIO from a non-blocking open: a FIFO nothing reads (opened to write), a socket, or a device
 * without its device. None is a regular file.
 */
function openError(file: string, err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENXIO' ? new NotRegularFileError(file, 'a FIFO, a socket or a device') : err;
}

/** Refuses `stat` unless it is a regular file; a folder keeps the error a read of it always gave (EISDIR). */
function checkRegular(file: string, stat: fs.Stats): void {
  if (stat.isFile()) return;
  if (stat.isDirectory()) {
    throw Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${file}'`), { code: 'EISDIR', errno: -21, syscall: 'open', path: file });
  }
  throw new NotRegularFileError(file, kindOf(stat));
}

export interface OpenedFile {
  fd: number;
  /** Its size when opened (a hint: reads never trust it). */
  size: number;
}

/** Opens `file` as a regular file, or throws (what open throws, EISDIR, or NotRegularFileError); the caller closes `fd`. */
export function openRegularSync(file: string, mode: OpenMode, createMode = 0o600): OpenedFile {
  let fd: number;
  try {
    fd = fs.openSync(file, FLAGS[mode], createMode);
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const stat = fs.fstatSync(fd);
    checkRegular(file, stat);
    if (mode === 'w' && stat.size > 0) fs.ftruncateSync(fd, 0);
    return { fd, size: mode === 'w' ? 0 : stat.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The async form of {@link openRegularSync} (callback fs: cheaper than fs.promises for small files). */
export async function openRegular(file: string, mode: OpenMode, createMode = 0o600): Promise<OpenedFile> {
  const fd = await new Promise<number>((resolve, reject) => fs.open(file, FLAGS[mode], createMode, (err, fd) => (err ? reject(openError(file, err)) : resolve(fd))));
  try {
    const stat = await new Promise<fs.Stats>((resolve, reject) => fs.fstat(fd, (err, s) => (err ? reject(err) : resolve(s))));
    checkRegular(file, stat);
    if (mode === 'w' && stat.size > 0) await new Promise<void>((resolve, reject) => fs.ftruncate(fd, 0, (err) => (err ? reject(err) : resolve())));
    return { fd, size: mode === 'w' ? 0 : stat.size };
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
}

export function closeQuietly(fd: number): void {
  fs.close(fd, () => undefined);
}

const CHUNK = 64 * 1024;

/**
 * The bytes of one capped read, gathered read by read (the sync and async forms share it). The first
 * buffer is the size fstat gave plus one (a short read then ends a file that did not grow), or a chunk
 * when it gave 0; it doubles as needed, never past the cap plus one.
 */
class CappedBytes {
  private buffer: Buffer;
  private total = 0;

  constructor(
    private readonly size: number,
    private readonly maxBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.min(size > 0 ? size + 1 : CHUNK, maxBytes + 1));
  }

  /** Where the next read goes: the buffer and its free room from `at`. */
  room(): { buffer: Buffer; at: number } {
    if (this.total === this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.min(this.buffer.length * 2, this.maxBytes + 1));
      this.buffer.copy(bigger, 0, 0, this.total);
      this.buffer = bigger;
    }
    return { buffer: this.buffer, at: this.total };
  }

  /** Takes a read of `n` bytes: 'end' at the file's end, 'over' past the cap, else 'more'. */
  took(n: number): 'more' | 'end' | 'over' {
    if (n === 0) return 'end';
    this.total += n;
    if (this.total > this.maxBytes) return 'over';
    // A short read at the known size: the end.
    return this.size > 0 && this.total === this.size && this.total < this.buffer.length ? 'end' : 'more';
  }

  get bytes(): Buffer {
    return this.buffer.subarray(0, this.total);
  }
}

/**
 * The bytes of the regular file `file`, or null when it holds more than `maxBytes`. Throws what
 * opening throws (ENOENT, …), EISDIR for a folder, NotRegularFileError for anything else.
 */
export function readRegularFileSync(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Buffer | null {
  const { fd, size } = openRegularSync(file, 'r');
  try {
    if (size > maxBytes) return null;
    const read = new CappedBytes(size, maxBytes);
    for (;;) {
      const { buffer, at } = read.room();
      const outcome = read.took(fs.readSync(fd, buffer, at, buffer.length - at, at));
      if (outcome === 'over') return null;
      if (outcome === 'end') return read.bytes;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** One read's room for the common case of readRegularTextSync: the store's records and caches are a few KB. */
const SMALL_FILE = 64 * 1024;
let smallRead: Buffer | undefined;

/**
 * readRegularFileSync as text (UTF-8). A file smaller than SMALL_FILE costs an open, a read from its
 * start, a read at its end and a close, without the fstat: a listing reads every record this way,
 * and fstat's Stats object cost more than the reads themselves (1,000 records: 14 → 10 ms, as fast
 * as `readFileSync`). A positional read that stops short of its room, then one that reads nothing,
 * is the whole of a regular file. What such reads cannot vouch for goes the checked way: nothing
 * read (an empty file, or /dev/null), a full read (a larger file, or /dev/zero), more at the end (a
 * file that grew, or a file system that stopped short) and a failed read (a FIFO or a terminal, where
 * a positional read fails with ESPIPE; a folder, EISDIR). No read can block (the open is
 * non-blocking) or take more than SMALL_FILE bytes.
 */
export function readRegularTextSync(file: string, maxBytes = Number.MAX_SAFE_INTEGER): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, FLAGS.r);
  } catch (err) {
    throw openError(file, err);
  }
  const buffer = (smallRead ??= Buffer.allocUnsafe(SMALL_FILE));
  const room = Math.min(buffer.length, maxBytes + 1);
  let read: number;
  let atEnd: boolean;
  try {
    read = fs.readSync(fd, buffer, 0, room, 0);
    // A short read is the end on a local file system; a network or FUSE one may stop short, so the end is read.
    atEnd = read > 0 && read < room && fs.readSync(fd, buffer, read, 1, read) === 0;
  } catch (err) {
    try {
      checkRegular(file, fs.fstatSync(fd));
    } finally {
      fs.closeSync(fd);
    }
    throw err;
  }
  fs.closeSync(fd);
  if (atEnd) return buffer.toString('utf8', 0, read);
  return readRegularFileSync(file, maxBytes)?.toString('utf8') ?? null;
}

/** The async form of {@link readRegularFileSync}. */
export async function readRegularFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Buffer | null> {
  const { fd, size } = await openRegular(file, 'r');
  try {
    if (size > maxBytes) return null;
    const read = new CappedBytes(size, maxBytes);
    for (;;) {
      const { buffer, at } = read.room();
      const n = await new Promise<number>((resolve, reject) => fs.read(fd, buffer, at, buffer.length - at, at, (err, bytes) => (err ? reject(err) : resolve(bytes))));
      const outcome = read.took(n);
      if (outcome === 'over') return null;
      if (outcome === 'end') return read.bytes;
    }
  } finally {
    closeQuietly(fd);
  }
}

/** readRegularFile as text (UTF-8). */
export async function readRegularText(file: string, maxBytes?: number): Promise<string | null> {
  return (await readRegularFile(file, maxBytes))?.toString('utf8') ?? null;
}

/** Replaces the content of the regular file `file` (created when missing) with `data`; refuses anything else, as openRegularSync. */
export function writeRegularFileSync(file: string, data: string | Buffer, createMode = 0o600): void {
  const { fd } = openRegularSync(file, 'w', createMode);
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The async form of {@link writeRegularFileSync}. Done only once closed: a network file system (NFS) may
 * say only at the close that the data could not be written (EIO, EDQUOT), and a write said done then
 * was not (bug 167: a stop request said kept that was not).
 */
export async function writeRegularFile(file: string, data: string | Buffer, createMode = 0o600): Promise<void> {
  const { fd } = await openRegular(file, 'w', createMode);
  try {
    await new Promise<void>((resolve, reject) => fs.writeFile(fd, data, (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
  await new Promise<void>((resolve, reject) => fs.close(fd, (err) => (err ? reject(err) : resolve())));
}
