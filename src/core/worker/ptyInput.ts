/**
 * Everything typed into the agent goes through here: viewers' keys and pastes,
 * sent prompts, the mirror's replies to terminal queries.
 *
 * node-pty's own writer keeps one buffer per call, writes them one thread-pool
 * round trip at a time and retries a full PTY (EAGAIN) on `setImmediate`. So a
 * viewer that types faster than the agent reads grew the worker without bound
 * (100,000 fuzzed frames left 96,000 buffers queued), and an agent that stops
 * reading made the worker spin a whole core until it read again (measured:
 * 2.0 s of CPU in 2 s for 100 KB pending).
 *
 * Here pending input is one list with a byte count, written in large
 * non-blocking writes on the event loop (a write to a full PTY returns EAGAIN
 * at once; it never blocks). A full PTY is tried again on a timer that backs
 * off. Past `highWaterBytes` the input is backlogged: connections stop reading
 * their sockets, so the pressure reaches the viewer's side instead of this
 * process's memory, and `onDidDrain` lets them read again.
 */
import { fstatSync, writeSync } from 'node:fs';
import { Disposable, disposableTimeout, IDisposable, toDisposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';

export interface PtyInputLimits {
  /** Pending bytes at which input is backlogged (connections stop reading). */
  highWaterBytes: number;
  /** Pending bytes at or below which a backlog is over. */
  lowWaterBytes: number;
}

/** 1 MiB: a large paste goes through without a pause; a flood is held at the viewer's socket. */
export const DEFAULT_INPUT_LIMITS: PtyInputLimits = { highWaterBytes: 1024 * 1024, lowWaterBytes: 256 * 1024 };

/** Small chunks (keystrokes, frames of a paste) are joined up to this size per write. */
const WRITE_BYTES = 64 * 1024;
/** A full PTY is tried again after 1 ms, doubling up to this while the agent reads nothing. */
const MAX_RETRY_MS = 32;

export class PtyInput extends Disposable {
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private backlogged = false;
  private retry: IDisposable | undefined;
  private retryMs = 1;
  private closed = false;
  /** The PTY master as first seen: a write goes only to this file (below). */
  private readonly identity: { dev: number; ino: number; rdev: number };

  private readonly _onDidDrain = this._register(new Emitter<void>());
  /** A backlog is over: connections may read their sockets again. */
  readonly onDidDrain: Event<void> = this._onDidDrain.event;

  constructor(
    private readonly fd: number,
    private readonly log: (message: string) => void,
    private readonly limits: PtyInputLimits = DEFAULT_INPUT_LIMITS,
  ) {
    super();
    const st = fstatSync(fd);
    this.identity = { dev: st.dev, ino: st.ino, rdev: st.rdev };
    this._register(toDisposable(() => this.close()));
  }

  /** Input waits beyond the high-water mark: hold further input until `onDidDrain`. */
  get isBacklogged(): boolean {
    return this.backlogged;
  }

  /**
   * Closed: by `close`, or by itself once its descriptor no longer names the PTY or a write failed
   * (EIO, EBADF). Its owner asks, since nothing written from then on reaches the agent (bug 164).
   */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes accepted and not yet written to the PTY. */
  get pending(): number {
    return this.pendingBytes;
  }

  write(data: string | Buffer): void {
    if (this.closed) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (bytes.length === 0) return;
    this.chunks.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= this.limits.highWaterBytes) this.backlogged = true;
    if (!this.retry) this.flush();
  }

  /** The PTY is gone (the agent ended): pending input is dropped and nothing is written again. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.retry?.dispose();
    this.retry = undefined;
    this.chunks = [];
    this.pendingBytes = 0;
    this.endBacklog();
  }

  private flush(): void {
    this.retry = undefined;
    // node-pty closes the master when its read side ends, and the number can be reused by the next
    // file this process opens: a write goes out only while the number still names the PTY it named.
    if (this.chunks.length > 0 && !this.stillThePty()) {
      this.log(`input: the PTY is closed; ${this.pendingBytes} bytes of input were not delivered`);
      this.close();
      return;
    }
    while (this.chunks.length > 0) {
      const head = this.nextWrite();
      let written: number;
      try {
        written = writeSync(this.fd, head);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.retry = disposableTimeout(() => this.flush(), this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
          return;
        }
        // EIO or EBADF: the agent's side of the PTY is gone; its end is reported by the exit.
        this.log(`input: ${(err as NodeJS.ErrnoException).code ?? 'write failed'}; ${this.pendingBytes} bytes of input were not delivered`);
        this.close();
        return;
      }
      this.retryMs = 1;
      this.pendingBytes -= written;
      if (written < head.length) this.chunks[0] = head.subarray(written);
      else this.chunks.shift();
      if (this.backlogged && this.pendingBytes <= this.limits.lowWaterBytes) this.endBacklog();
    }
  }

  /** The first pending chunk, with the small ones after it joined to it (one write instead of many). */
  private nextWrite(): Buffer {
    const first = this.chunks[0];
    if (this.chunks.length === 1 || first.length >= WRITE_BYTES) return first;
    let count = 1;
    let size = first.length;
    while (count < this.chunks.length && size + this.chunks[count].length <= WRITE_BYTES) size += this.chunks[count++].length;
    if (count === 1) return first;
    const joined = Buffer.concat(this.chunks.slice(0, count), size);
    this.chunks.splice(0, count, joined);
    return joined;
  }

  private stillThePty(): boolean {
    try {
      const st = fstatSync(this.fd);
      return st.dev === this.identity.dev && st.ino === this.identity.ino && st.rdev === this.identity.rdev;
    } catch {
      return false;
    }
  }

  private endBacklog(): void {
    if (!this.backlogged) return;
    this.backlogged = false;
    this._onDidDrain.fire();
  }
}
