/**
 * Reads a JSON-lines file incrementally: it remembers the byte offset after
 * the last complete line and, on each call, parses only what was appended
 * since. A partial last line (the writer is mid-line) waits for the next call.
 * A file that shrank or was replaced is read again from its start.
 */
import { promises as fsp } from 'node:fs';

/** Bytes read at most per step; a longer line is read in several steps. */
const CHUNK_BYTES = 1024 * 1024;
/** A line longer than this is skipped (nothing the figures need is that long). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class JsonlTail {
  private offset = 0;
  private inode: number | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;

  constructor(readonly path: string) {}

  /** Bytes consumed so far (complete lines), for tests. */
  get consumed(): number {
    return this.offset;
  }

  /**
   * Calls `onLine` with each complete line appended since the last call
   * (parsed; lines that are not JSON are skipped). Returns true when the file
   * was read from its start again (the caller forgets what it summed).
   */
  async read(onLine: (value: unknown) => void): Promise<boolean> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.path, 'r');
    } catch {
      return false;
    }
    try {
      const stat = await handle.stat();
      let restarted = false;
      if (stat.ino !== this.inode || stat.size < this.offset + this.pendingBytes) {
        restarted = this.inode !== undefined;
        this.inode = stat.ino;
        this.offset = 0;
        this.pending = [];
        this.pendingBytes = 0;
        this.skipping = false;
      }
      let position = this.offset + this.pendingBytes;
      while (position < stat.size) {
        const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, stat.size - position));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        this.take(chunk.subarray(0, bytesRead), onLine);
      }
      return restarted;
    } finally {
      await handle.close();
    }
  }

  private take(chunk: Buffer, onLine: (value: unknown) => void): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const lineBytes = this.pendingBytes + piece.length;
      if (!this.skipping) {
        const line = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
        parseInto(line, onLine);
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

function parseInto(line: Buffer, onLine: (value: unknown) => void): void {
  if (line.length === 0) return;
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return; // not JSON: a torn or foreign line
  }
  onLine(value);
}
