/**
 * JSON-lines framing with a hard line-size limit. The decoder never holds more
 * than `maxLineBytes` of an unfinished line: a peer that sends a longer line is
 * reported through `onOversize` and the caller closes that connection.
 */
import * as z from 'zod';
import { MAX_LINE_BYTES } from './messages';

const NEWLINE = 0x0a;

export class LineDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.failed) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl < 0) {
        const rest = chunk.length - start;
        if (rest > 0) {
          if (this.pendingBytes + rest > this.maxLineBytes) return this.fail();
          this.pending.push(chunk.subarray(start));
          this.pendingBytes += rest;
        }
        return;
      }
      if (this.pendingBytes + (nl - start) > this.maxLineBytes) return this.fail();
      let line: Buffer;
      if (this.pending.length === 0) {
        line = chunk.subarray(start, nl);
      } else {
        this.pending.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
      }
      start = nl + 1;
      if (line.length > 0) this.onLine(line.toString('utf8'));
    }
  }

  private fail(): void {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.onOversize();
  }
}

export function encodeFrame(message: object): string {
  return `${JSON.stringify(message)}\n`;
}

export type DecodeResult<T> = { ok: true; message: T } | { ok: false; reason: string };

/** Parses one line and validates it; never throws. */
export function decodeFrame<T>(line: string, schema: z.ZodType<T>): DecodeResult<T> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'malformed JSON' };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    return { ok: false, reason: `invalid message${where}: ${issue?.message ?? 'unknown'}` };
  }
  return { ok: true, message: parsed.data };
}
