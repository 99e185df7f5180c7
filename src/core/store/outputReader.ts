/**
 * Reads an agent's output log from where a reader left off (`paddock logs --follow`): only the bytes
 * written since, found by segment and offset, never by matching text. The log drops its oldest
 * segment as it grows (outputLog.ts), so a reader that re-read the whole log and looked for the end
 * of what it had printed found it again further on in output that repeats itself (a progress line),
 * and skipped what came in between; it also read up to the whole cap at every look.
 */
import * as fs from 'node:fs';
import { segmentPath, segmentSeqs } from './outputLog';
import { closeQuietly, openRegular, type OpenedFile } from './regularFile';

/** Where a reader stands: the segment it read last, and how many of its bytes. */
export interface OutputPosition {
  readonly seq: number;
  readonly offset: number;
}

/** Before the first byte of any log. */
export const OUTPUT_START: OutputPosition = { seq: 0, offset: 0 };

export interface OutputRead {
  /** The bytes written since `from`, in order. */
  data: Buffer;
  /** Where the next read starts. */
  position: OutputPosition;
  /** Bytes after `from` the log dropped before they were read (the reader fell a whole cap behind). */
  skipped: boolean;
}

/** The bytes of the log in `dir` after `from`. */
export async function readOutputFrom(dir: string, from: OutputPosition): Promise<OutputRead> {
  const seqs = await segmentsFrom(dir, from.seq);
  let skipped = from.seq > 0 && seqs.length > 0 && seqs[0] !== from.seq && (await droppedUnread(dir, from, seqs));
  const parts: Buffer[] = [];
  let position = from;
  for (const seq of seqs) {
    const start = seq === from.seq ? from.offset : 0;
    const bytes = await readFromOffset(segmentPath(dir, seq), start);
    if (bytes === null) {
      skipped = true; // dropped between the listing and the read: the oldest, behind the rest
      continue;
    }
    if (bytes.length > 0) parts.push(bytes);
    position = { seq, offset: start + bytes.length };
  }
  return { data: Buffer.concat(parts), position, skipped };
}

/**
 * The segment read last is gone: whether bytes after `from` went with it. A whole segment between
 * them did; otherwise only if `from` was short of that segment's end. The writer fills each segment
 * to the same size before it starts the next, and drops one only with several newer behind it, so a
 * full segment after the first listed one gives that size.
 */
async function droppedUnread(dir: string, from: OutputPosition, seqs: readonly number[]): Promise<boolean> {
  if (seqs[0] > from.seq + 1) return true;
  if (seqs.length < 2) return false; // no full segment to measure; never so while the log drops segments
  try {
    return from.offset < (await fs.promises.stat(segmentPath(dir, seqs[0]))).size;
  } catch {
    return true;
  }
}

/** The log's segments from `first` on, oldest first; none before anything was written. */
async function segmentsFrom(dir: string, first: number): Promise<number[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []; // nothing written yet
    throw err;
  }
  return segmentSeqs(names).filter((seq) => seq >= first);
}

/**
 * The file's bytes from `offset` to its size now (the writer may be appending); null when it is gone.
 * A segment that is not a regular file (a FIFO, a device) throws NotRegularFileError (regularFile.ts).
 */
async function readFromOffset(file: string, offset: number): Promise<Buffer | null> {
  let opened: OpenedFile;
  try {
    opened = await openRegular(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const { fd, size } = opened;
  try {
    const length = Math.max(0, size - offset);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const at = read;
      const bytesRead = await new Promise<number>((resolve, reject) => fs.read(fd, buffer, at, length - at, offset + at, (err, n) => (err ? reject(err) : resolve(n))));
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return buffer.subarray(0, read);
  } finally {
    closeQuietly(fd);
  }
}
