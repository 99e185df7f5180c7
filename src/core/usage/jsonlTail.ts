/**
 * Reads a JSON-lines file incrementally: it remembers the byte offset after
 * the last complete line and, on each call, parses only what was appended
 * since. A partial last line (the writer is mid-line) waits for the next call.
 * A file that shrank or was replaced is read again from its start — and the
 * reader is told so before the first line of the new content, so whatever it
 * summed from the old content is forgotten before the new is counted.
 *
 * Where it stands (file identity and offset) can be taken out and given back
 * to a later reader (`position`, the constructor), so a one-shot process goes
 * on where the previous one stopped (see usageCursor.ts).
 */
import { constants, promises as fsp } from 'node:fs';

/** Bytes read at most per step; a longer line is read in several steps. */
const CHUNK_BYTES = 1024 * 1024;
/** A line longer than this is skipped (nothing the figures need is that long). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The first bytes of the file are remembered (base64) to notice the same file rewritten in place. */
const HEAD_BYTES = 64;

/** Which file (device and inode: a replaced file is another), how far its complete lines were read, and how it began. */
export interface TailPosition {
  dev: number;
  ino: number;
  offset: number;
  head: string;
}

/** What a read tells its caller. */
export interface TailListener {
  /** The file was replaced or shrank: forget what its earlier lines said (called before the new lines). */
  restart(): void;
  /** One complete line, parsed (lines that are not JSON are skipped). */
  line(value: unknown): void;
}

export class JsonlTail {
  private offset = 0;
  private identity: { dev: number; ino: number } | undefined;
  private head = '';
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  /** The read under way (reads of one tail run one after the other). */
  private reading: Promise<void> = Promise.resolve();

  /** `from`: where an earlier reader of the same path stopped (checked against the file on the first read). */
  constructor(
    readonly path: string,
    from?: TailPosition,
  ) {
    if (from) {
      this.identity = { dev: from.dev, ino: from.ino };
      this.offset = from.offset;
      this.head = from.head;
    }
  }

  /** Bytes consumed so far (complete lines), for tests. */
  get consumed(): number {
    return this.offset;
  }

  /** Where the complete lines end, to be given to a later reader; undefined before the file was opened. */
  get position(): TailPosition | undefined {
    return this.identity && { ...this.identity, offset: this.offset, head: this.head };
  }

  /**
   * Passes each complete line appended since the last call to `listener` (after `restart` when the file was
   * replaced). Reads asked at once (two agents looking at one session file) run one after the other: one offset.
   */
  read(listener: TailListener): Promise<void> {
    const next = this.reading.then(() => this.readOnce(listener));
    this.reading = next.catch(() => undefined);
    return next;
  }

  private async readOnce(listener: TailListener): Promise<void> {
    let handle: fsp.FileHandle;
    try {
      // Non-blocking: a FIFO put where the session file was (after the listing's look) opens at once
      // instead of holding a thread of the pool until a writer comes (four such and every fs call waits).
      handle = await fsp.open(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      return;
    }
    try {
      const stat = await handle.stat();
      // Only a regular file is a transcript: a FIFO, a device (/dev/zero reads for ever) is left alone.
      if (!stat.isFile()) return;
      const same = this.identity !== undefined && stat.dev === this.identity.dev && stat.ino === this.identity.ino;
      if (!same || stat.size < this.offset + this.pendingBytes || !(await this.continues(handle))) {
        // Read before (here or by the process whose position this one took): what it counted is void.
        if (this.identity !== undefined) listener.restart();
        this.identity = { dev: stat.dev, ino: stat.ino };
        this.offset = 0;
        this.pending = [];
        this.pendingBytes = 0;
        this.skipping = false;
        this.head = '';
      }
      let position = this.offset + this.pendingBytes;
      while (position < stat.size) {
        const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, stat.size - position));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        this.take(chunk.subarray(0, bytesRead), listener);
      }
      if (headLength(this.head) < Math.min(HEAD_BYTES, this.offset)) this.head = await headOf(handle, this.offset);
    } finally {
      await handle.close();
    }
  }

  /**
   * Whether the file still holds what was read: it begins as it did and a line
   * still ends where the last one read did. (A rewrite in place to the same
   * length is caught so; one that keeps both is not told apart from appending.)
   */
  private async continues(handle: fsp.FileHandle): Promise<boolean> {
    if (this.offset === 0) return true;
    const end = Buffer.alloc(1);
    await handle.read(end, 0, 1, this.offset - 1);
    return end[0] === 10 && (await headOf(handle, headLength(this.head))) === this.head;
  }

  private take(chunk: Buffer, listener: TailListener): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const lineBytes = this.pendingBytes + piece.length;
      if (!this.skipping) {
        const line = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
        parseInto(line, listener);
      }
      this.offset += lineBytes + 1;
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    this.pendingBytes += rest.length;
    if (this.pendingBytes > MAX_LINE_BYTES) {
      this.skipping = true;
      this.pending = [];
    } else if (!this.skipping) {
      this.pending.push(Buffer.from(rest));
    }
  }
}

const headLength = (head: string) => Buffer.from(head, 'base64').length;

/** The file's first bytes (at most HEAD_BYTES, and at most `upTo`), base64. */
async function headOf(handle: fsp.FileHandle, upTo: number): Promise<string> {
  const buffer = Buffer.alloc(Math.min(HEAD_BYTES, upTo));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead).toString('base64');
}

function parseInto(line: Buffer, listener: TailListener): void {
  if (line.length === 0) return;
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return; // not JSON: a torn or foreign line
  }
  listener.line(value);
}
