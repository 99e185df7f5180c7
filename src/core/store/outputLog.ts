/**
 * The agent's terminal output as fixed-size segment files
 * (`output/000000000001.seg`, ...). When the total would pass the cap the oldest
 * segment is deleted: capping costs O(1), never a rewrite. Text is redacted
 * before it reaches disk; the last few hundred characters are held back until
 * more output (or a quiet moment, or close) shows that no secret is cut in half.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { disposableTimeout, IDisposable } from '../common/lifecycle';
import { ensureDir, FILE_MODE } from './durable';
import { Redactor } from './redactor';

export interface OutputLog {
  append(data: string | Buffer): void;
  /** Writes everything held back (redacted). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_OUTPUT_CAP = 8 * 1024 * 1024;
export const SEGMENTS_PER_CAP = 8;
const SEGMENT_PATTERN = /^(\d{12})\.seg$/;
/** At least this much text is held back so a token split across two chunks is still seen whole. */
const MIN_HOLD_BACK = 256;
/** Held-back text beyond this is written anyway (a runaway "token" must not grow memory). */
const MAX_PENDING = 64 * 1024;
const QUIET_FLUSH_MS = 100;

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

export async function readSegments(dir: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const seq of listSegments(dir)) {
    try {
      parts.push(await fs.promises.readFile(segmentPath(dir, seq)));
    } catch (err) {
      // Dropped by the writer between listing and reading: it was the oldest anyway.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return Buffer.concat(parts);
}

export class SegmentedOutputLog implements OutputLog {
  private readonly segmentSize: number;
  private readonly maxSegments: number;
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private seq: number;
  private fd: number | undefined;
  private written: number;
  private quietTimer: IDisposable | undefined;
  private closed = false;

  constructor(
    private readonly dir: string,
    capBytes: number,
    private readonly redactor: Redactor,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.segmentSize = segmentSizeFor(capBytes);
    this.maxSegments = Math.max(1, Math.floor(capBytes / this.segmentSize));
    ensureDir(dir);
    const existing = listSegments(dir);
    this.seq = existing.length ? existing[existing.length - 1] : 1;
    this.written = existing.length ? fs.statSync(segmentPath(dir, this.seq)).size : 0;
  }

  append(data: string | Buffer): void {
    if (this.closed) return;
    this.pending += typeof data === 'string' ? data : this.decoder.write(data);
    const holdBack = Math.max(MIN_HOLD_BACK, this.redactor.longestSecret);
    let cut = this.pending.length - holdBack;
    if (cut <= 0) return this.scheduleQuietFlush();
    if (this.pending.length <= MAX_PENDING) {
      // Never cut through something that would be redacted: cut before it instead.
      for (const span of this.redactor.spans(this.pending)) if (span.start < cut && span.end > cut) cut = span.start;
    }
    if (cut > 0) this.writeRedacted(this.pending.slice(0, cut), this.pending.slice(cut));
    this.scheduleQuietFlush();
  }

  /**
   * Writes what is pending, except an end that could be the start of a secret
   * printed in two parts (a pause between them must not let it through whole);
   * `close()` writes everything.
   */
  async flush(): Promise<void> {
    this.writePending(false);
  }

  private writePending(final: boolean): void {
    this.quietTimer?.dispose();
    this.quietTimer = undefined;
    this.pending += final ? this.decoder.end() : '';
    const keep = final ? 0 : this.redactor.secretPrefixAtEnd(this.pending);
    const cut = this.pending.length - keep;
    if (cut > 0) this.writeRedacted(this.pending.slice(0, cut), this.pending.slice(cut));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.writePending(true);
    this.closed = true;
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private scheduleQuietFlush(): void {
    this.quietTimer?.dispose();
    this.quietTimer = disposableTimeout(() => {
      this.quietTimer = undefined;
      this.flush().catch(this.onError);
    }, QUIET_FLUSH_MS);
  }

  private writeRedacted(text: string, rest: string): void {
    this.pending = rest;
    try {
      this.writeBytes(Buffer.from(this.redactor.redact(text), 'utf8'));
    } catch (err) {
      this.onError(err);
    }
  }

  private writeBytes(bytes: Buffer): void {
    let offset = 0;
    while (offset < bytes.length) {
      if (this.written >= this.segmentSize) this.rotate();
      this.fd ??= fs.openSync(segmentPath(this.dir, this.seq), 'a', FILE_MODE);
      const n = Math.min(this.segmentSize - this.written, bytes.length - offset);
      fs.writeSync(this.fd, bytes, offset, n);
      offset += n;
      this.written += n;
    }
  }

  private rotate(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    this.seq++;
    this.written = 0;
    // Keep maxSegments including the new one, so the total never exceeds the cap.
    const existing = listSegments(this.dir);
    for (const seq of existing.slice(0, Math.max(0, existing.length - (this.maxSegments - 1)))) {
      fs.rmSync(segmentPath(this.dir, seq), { force: true });
    }
  }
}
