/**
 * JSON-lines framing with a hard line-size limit, plus (worker → viewer only)
 * length-prefixed binary output frames. The decoder never holds more than
 * `maxLineBytes` of an unfinished line: a peer that sends a longer line, or a
 * binary frame with an invalid header, is reported through `onInvalid` and the
 * caller closes that connection.
 */
import { StringDecoder } from 'node:string_decoder';
import * as z from '../common/zod';
import { BINARY_HEADER_BYTES, BINARY_OUTPUT_FRAME, BinaryOutputHeaderSchema, MAX_LINE_BYTES } from './messages';

const NEWLINE = 0x0a;
/**
 * A line that arrives in many small reads (a peer writing a byte at a time) keeps one buffer per
 * read, each costing ~40 times its byte: measured, 120 MB of worker memory for 3 MB sent so. Runs of
 * this many small pieces are joined as they come (linear: each byte is copied once more at most).
 */
const JOIN_SMALL_PIECES = 64;
const SMALL_PIECE_BYTES = 1024;

export class LineDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Small pieces at the end of `pending`, not joined yet. */
  private smallPieces = 0;
  private failed = false;
  /** Inside a binary frame: the header bytes read so far (`headerBytes` > 0), then the payload bytes still missing. */
  private readonly header = Buffer.alloc(BINARY_HEADER_BYTES);
  private headerBytes = 0;
  private payloadMissing = 0;
  /** A payload split between reads is decoded piece by piece (no large buffer is built). */
  private payloadText: string | undefined;
  private readonly payloadDecoder = new StringDecoder('utf8');

  /** `onBinary` set: a frame starting with BINARY_OUTPUT_FRAME is a binary output frame, passed on as its UTF-8 text (the client side). */
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onInvalid: (reason: string) => void,
    private maxLineBytes = MAX_LINE_BYTES,
    private readonly onBinary?: (text: string) => void,
    /** What a line is called in the reason a too-long one gives ("first frame" before authentication). */
    private lineName = 'frame',
  ) {}

  /** Changes the longest line accepted from now on (a connection that has authenticated may send longer ones). */
  setLineLimit(maxLineBytes: number, lineName: string): void {
    this.maxLineBytes = maxLineBytes;
    this.lineName = lineName;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.failed && start < chunk.length) {
      if (this.payloadMissing > 0) start = this.takePayload(chunk, start);
      else if (this.headerBytes > 0 || (this.onBinary && this.pendingBytes === 0 && chunk[start] === BINARY_OUTPUT_FRAME)) {
        start = this.takeHeader(chunk, start);
      } else start = this.takeLine(chunk, start);
    }
  }

  private takeLine(chunk: Buffer, start: number): number {
    const nl = chunk.indexOf(NEWLINE, start);
    if (nl < 0) {
      const rest = chunk.length - start;
      if (this.pendingBytes + rest > this.maxLineBytes) return this.fail(`${this.lineName} longer than ${this.maxLineBytes} bytes`, chunk);
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += rest;
      this.smallPieces = rest < SMALL_PIECE_BYTES ? this.smallPieces + 1 : 0;
      if (this.smallPieces === JOIN_SMALL_PIECES) {
        this.pending.push(Buffer.concat(this.pending.splice(this.pending.length - JOIN_SMALL_PIECES)));
        this.smallPieces = 0;
      }
      return chunk.length;
    }
    if (this.pendingBytes + (nl - start) > this.maxLineBytes) return this.fail(`${this.lineName} longer than ${this.maxLineBytes} bytes`, chunk);
    const line = this.collect(chunk.subarray(start, nl));
    if (line.length > 0) this.onLine(line.toString('utf8'));
    return nl + 1;
  }

  private takeHeader(chunk: Buffer, start: number): number {
    const header = this.header;
    const n = chunk.copy(header, this.headerBytes, start, start + BINARY_HEADER_BYTES - this.headerBytes);
    this.headerBytes += n;
    if (this.headerBytes < BINARY_HEADER_BYTES) return start + n;
    this.headerBytes = 0;
    const parsed = BinaryOutputHeaderSchema.safeParse({ kind: header[0], length: header.readUInt32BE(1) });
    if (!parsed.success) return this.fail(`binary frame of invalid length ${header.readUInt32BE(1)}`, chunk);
    this.payloadMissing = parsed.data.length;
    return start + n;
  }

  private takePayload(chunk: Buffer, start: number): number {
    const n = Math.min(this.payloadMissing, chunk.length - start);
    this.payloadMissing -= n;
    const piece = chunk.subarray(start, start + n);
    if (this.payloadMissing > 0) {
      this.payloadText = (this.payloadText ?? '') + this.payloadDecoder.write(piece);
      return start + n;
    }
    const text = this.payloadText === undefined ? piece.toString('utf8') : this.payloadText + this.payloadDecoder.write(piece) + this.payloadDecoder.end();
    this.payloadText = undefined;
    (this.onBinary as (text: string) => void)(text);
    return start + n;
  }

  /** The pending pieces followed by `last`, as one buffer (no copy when nothing was pending). */
  private collect(last: Buffer): Buffer {
    if (this.pending.length === 0) return last;
    this.pending.push(last);
    const whole = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.smallPieces = 0;
    return whole;
  }

  /** Stops decoding for good; returns the end of `chunk` (nothing more of it is read). */
  private fail(reason: string, chunk: Buffer): number {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.smallPieces = 0;
    this.onInvalid(reason);
    return chunk.length;
  }
}

/** The header of a binary output frame whose payload is `bytes` long (the payload is written after it as is). */
export function binaryOutputHeader(bytes: number): Buffer {
  const header = Buffer.allocUnsafe(BINARY_HEADER_BYTES);
  header[0] = BINARY_OUTPUT_FRAME;
  header.writeUInt32BE(bytes, 1);
  return header;
}

/**
 * Length of the longest start of `bytes` that does not end inside a UTF-8
 * character: a frame is cut there, so each frame's payload decodes on its own.
 */
export function completeUtf8Length(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const b = bytes[i];
    if (b < 0x80) return n;
    if (b >= 0xc0) {
      const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return n - i < size ? i : n;
    }
    // a continuation byte: its lead byte is further back
  }
  return n;
}

export function encodeFrame(message: object): string {
  return `${JSON.stringify(message)}\n`;
}

export type DecodeResult<T> = { ok: true; message: T } | { ok: false; reason: string };

/** Parses one line and validates it; never throws. */
export function decodeFrame<T>(line: string, schema: z.ZodMiniType<T>): DecodeResult<T> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'malformed JSON' };
  }
  return validateMessage(value, schema);
}

/** Validates a message that arrived already parsed (a binary frame's contents); never throws. */
export function validateMessage<T>(value: unknown, schema: z.ZodMiniType<T>): DecodeResult<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    return { ok: false, reason: `invalid message${where}: ${issue?.message ?? 'unknown'}` };
  }
  return { ok: true, message: parsed.data };
}
