/**
 * The agent's terminal output as fixed-size segment files
 * (`output/000000000001.seg`, ...). When the total would pass the cap the oldest
 * segment is deleted: capping costs O(1), never a rewrite. The log keeps the
 * bytes the agent wrote, redacted before they reach disk (redactingStream.ts).
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ensureDir, FILE_MODE } from './durable';
import { HeadAndTail } from './headAndTail';
import { RedactingStream } from './redactingStream';
import { Redactor } from './redactor';
import { openRegularSync } from './regularFile';

export interface OutputLog {
  /** Text, or raw bytes (kept by reference until written: do not reuse the buffer). */
  append(data: string | Buffer): void;
  /**
   * What is appended from now until `endBounded` — the output of a command Paddock runs in the
   * worktree (`label`: setup, teardown) — is kept as its head and tail with a line saying how many
   * bytes were left out, within the room the log has before it would drop its oldest segment and a
   * small allowance past it: however much the command prints, it never pushes the agent's own output
   * out of the log, and even at the log's very edge its line and the ends of its output are kept.
   */
  beginBounded(label: string): void;
  /** Ends what `beginBounded` began: the line about what was left out and the tail are written. */
  endBounded(): void;
  /** Writes everything held back (redacted). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_OUTPUT_CAP = 8 * 1024 * 1024;
export const SEGMENTS_PER_CAP = 8;
/** What a bounded stretch keeps of its head, and again of its tail: a 64th of the cap, 32 KiB at most. */
const BOUNDED_SHARE_MAX = 32 * 1024;
const BOUNDED_SHARE_OF_CAP = 64;
/**
 * A log at the edge of dropping a segment still keeps this part of a stretch's share (an eighth: 4 KiB
 * of each end by default) and its line, past its cap rather than dropping the agent's output for it:
 * the log may hold that much more than its cap until the agent's next output drops its oldest segment.
 */
const BOUNDED_FLOOR_OF_SHARE = 8;
const SEGMENT_PATTERN = /^(\d{12})\.seg$/;
/** Buffers handed to one writev at most (IOV_MAX is 1024 on Linux). */
const MAX_IOVECS = 256;

export function segmentSizeFor(capBytes: number): number {
  return Math.max(1, Math.floor(capBytes / SEGMENTS_PER_CAP));
}

export function listSegments(dir: string): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return segmentSeqs(names);
}

/** The sequence numbers of the segment files among `names`, oldest first. */
export function segmentSeqs(names: readonly string[]): number[] {
  const seqs: number[] = [];
  for (const name of names) {
    const m = SEGMENT_PATTERN.exec(name);
    if (m) seqs.push(Number(m[1]));
  }
  return seqs.sort((a, b) => a - b);
}

export function segmentPath(dir: string, seq: number): string {
  return join(dir, `${String(seq).padStart(12, '0')}.seg`);
}

/** Queued bytes of one kind: the agent's (they drop the oldest segment as the cap says) or a bounded stretch's (they never do). */
interface Run {
  readonly bounded: boolean;
  chunks: Buffer[];
}

export class SegmentedOutputLog implements OutputLog {
  private readonly segmentSize: number;
  private readonly maxSegments: number;
  private readonly stream: RedactingStream;
  private seq: number;
  private fd: number | undefined;
  private written: number;
  private closed = false;
  /**
   * Redacted bytes not yet written. Writes run on libuv's thread pool, one at
   * a time and in order: copying into the page cache does not hold up the
   * thread that reads the PTY.
   */
  private toWrite: Run[] = [];
  /** More segments than the cap allows, by a bounded stretch's allowance: the agent's next output drops the oldest. */
  private overCap: boolean;
  private inFlight = false;
  /** The bytes of the write under way. */
  private inFlightBytes = 0;
  /** The head and tail kept of a command's output (`beginBounded`), or none. */
  private bounded: HeadAndTail | undefined;
  private whenIdle: (() => void)[] = [];

  constructor(
    private readonly dir: string,
    private readonly capBytes: number,
    redactor: Redactor,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.segmentSize = segmentSizeFor(capBytes);
    this.maxSegments = Math.max(1, Math.floor(capBytes / this.segmentSize));
    // Redacted first: the cut of a bounded stretch can never leave half a secret readable.
    this.stream = new RedactingStream(redactor, (chunks) => (this.bounded ? this.bounded.take(chunks) : this.write(false, chunks)), onError);
    ensureDir(dir);
    const existing = listSegments(dir);
    this.seq = existing.length ? existing[existing.length - 1] : 1;
    this.written = existing.length ? fs.statSync(segmentPath(dir, this.seq)).size : 0;
    this.overCap = existing.length > this.maxSegments;
  }

  append(data: string | Buffer): void {
    if (!this.closed) this.stream.append(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  beginBounded(label: string): void {
    if (this.closed || this.bounded) return;
    this.stream.writeHeld();
    const share = Math.min(BOUNDED_SHARE_MAX, Math.floor(this.capBytes / BOUNDED_SHARE_OF_CAP));
    const lineRoom = Buffer.byteLength(leftOutLine(Number.MAX_SAFE_INTEGER, label));
    const room = this.boundedRoom(2 * Math.ceil(share / BOUNDED_FLOOR_OF_SHARE) + lineRoom);
    // A log about to drop a segment keeps less of the command, down to the floor its allowance gives; the
    // line is always kept (only stretches one after another with no agent output between use the allowance up).
    const keep = Math.max(0, Math.min(share, Math.floor((room - lineRoom) / 2)));
    this.bounded = new HeadAndTail(keep, keep, (chunks) => this.write(true, chunks), (leftOut) => leftOutLine(leftOut, label));
  }

  endBounded(): void {
    if (!this.bounded) return;
    this.stream.writeHeld();
    const bounded = this.bounded;
    this.bounded = undefined;
    bounded.end();
  }

  /**
   * Bytes a bounded stretch may add, once what is queued is written, before the log would hold more
   * than its cap and `allowance`: the rest of the current segment, the segments still missing, and the
   * allowance (less what earlier stretches already took of it). Queued bytes are laid out as the
   * writer will: the agent's drop the oldest segment at the cap, a stretch's never do.
   */
  private boundedRoom(allowance: number): number {
    const size = this.segmentSize;
    let segments = Math.max(1, listSegments(this.dir).length);
    let fill = this.written + this.inFlightBytes;
    for (const run of this.toWrite) {
      for (const chunk of run.chunks) {
        for (let n = chunk.length; n > 0; ) {
          if (fill >= size) {
            segments = run.bounded ? segments + 1 : Math.min(this.maxSegments, segments + 1);
            fill = 0;
          } else if (!run.bounded) segments = Math.min(this.maxSegments, segments);
          const take = Math.min(n, size - fill);
          fill += take;
          n -= take;
        }
      }
    }
    if (fill >= size) {
      // A full segment: the stretch's first byte starts the next.
      segments++;
      fill = 0;
    }
    return Math.max(0, (this.maxSegments - segments + 1) * size - fill + allowance);
  }

  /**
   * Writes what is pending, except an end that could be the start of a secret
   * printed in two parts (a pause between them must not let it through whole);
   * `close()` writes everything.
   */
  async flush(): Promise<void> {
    this.stream.flush();
    await this.allWritten();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.endBounded();
    this.stream.end();
    this.closed = true;
    await this.allWritten();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** Resolves once everything handed to `write` is on disk (or failed). */
  private allWritten(): Promise<void> {
    if (!this.inFlight && this.toWrite.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenIdle.push(resolve));
  }

  /** Queues `chunks`: a bounded stretch's (`bounded`) or the agent's. */
  private write(bounded: boolean, chunks: Buffer[]): void {
    const last = this.toWrite[this.toWrite.length - 1];
    if (last?.bounded === bounded) last.chunks.push(...chunks);
    else this.toWrite.push({ bounded, chunks: [...chunks] });
    this.writeNext();
  }

  /** Starts the next write: as much as the current segment takes, in one writev. */
  private writeNext(): void {
    if (this.inFlight) return;
    if (this.toWrite.length === 0) {
      for (const resolve of this.whenIdle.splice(0)) resolve();
      return;
    }
    let batch: Buffer[];
    const run = this.toWrite[0];
    try {
      if (this.written >= this.segmentSize) this.rotate(run.bounded);
      else if (!run.bounded && this.overCap) this.dropOldest(this.maxSegments);
      // Non-blocking and checked: a segment that is a FIFO or device is refused (reported), never waited on.
      this.fd ??= openRegularSync(segmentPath(this.dir, this.seq), 'a', FILE_MODE).fd;
      batch = this.takeBatch(run, this.segmentSize - this.written);
    } catch (err) {
      this.toWrite = [];
      this.onError(err);
      return this.writeNext();
    }
    this.inFlight = true;
    this.inFlightBytes = batch.reduce((n, b) => n + b.length, 0);
    fs.writev(this.fd, batch, (err, n) => {
      this.inFlight = false;
      this.inFlightBytes = 0;
      if (err) this.onError(err);
      else {
        this.written += n;
        // A short write (rare for a file): what did not go out goes first next time.
        const rest = unwritten(batch, n);
        if (rest.length) this.toWrite.unshift({ bounded: run.bounded, chunks: rest });
      }
      this.writeNext();
    });
  }

  /** Takes up to `room` bytes (a segment's end cuts a chunk) and MAX_IOVECS chunks off `run`, the first queued. */
  private takeBatch(run: Run, room: number): Buffer[] {
    const batch: Buffer[] = [];
    const chunks = run.chunks;
    while (chunks.length > 0 && room > 0 && batch.length < MAX_IOVECS) {
      const c = chunks[0];
      if (c.length > room) {
        batch.push(c.subarray(0, room));
        chunks[0] = c.subarray(room);
        break;
      }
      batch.push(c);
      chunks.shift();
      room -= c.length;
    }
    if (chunks.length === 0) this.toWrite.shift();
    return batch;
  }

  /**
   * Starts the next segment. For the agent's output it drops the oldest beyond the cap (maxSegments
   * with the new one, so the total never exceeds the cap); a bounded stretch's never drops one — its
   * few bytes past the cap (its allowance, `beginBounded`) wait for the agent's next output to do so.
   */
  private rotate(bounded: boolean): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    this.seq++;
    this.written = 0;
    if (!bounded) this.dropOldest(this.maxSegments - 1);
    else if (listSegments(this.dir).length + 1 > this.maxSegments) this.overCap = true;
  }

  /** Deletes the oldest segments until `keep` are left. */
  private dropOldest(keep: number): void {
    const existing = listSegments(this.dir);
    for (const seq of existing.slice(0, Math.max(0, existing.length - keep))) {
      fs.rmSync(segmentPath(this.dir, seq), { force: true });
    }
    this.overCap = false;
  }
}

/** The line in place of what a bounded stretch left out (starting on a line of its own, attributes reset). */
function leftOutLine(leftOut: number, label: string): string {
  return `\r\n\x1b[0m\x1b[2m──── ${leftOut.toLocaleString('en-US')} bytes of the ${label}'s output left out ────\x1b[0m\r\n`;
}

/** What of `batch` a write of `n` bytes left out. */
function unwritten(batch: Buffer[], n: number): Buffer[] {
  const rest: Buffer[] = [];
  for (const b of batch) {
    if (n >= b.length) n -= b.length;
    else {
      rest.push(n > 0 ? b.subarray(n) : b);
      n = 0;
    }
  }
  return rest;
}
