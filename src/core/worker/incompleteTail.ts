/**
 * What the end of a batch of output must keep for the next batch: a UTF-8
 * character or an escape sequence that the next PTY read completes.
 *
 * A viewer that attaches (or resyncs) gets a screen taken at a batch boundary,
 * then the output after it. The screen is drawn in a terminal whose parser is
 * at rest, so output that starts inside a sequence (`1mRED` after a read that
 * ended with `ESC [ 3`) would be printed as text. Holding the unfinished
 * sequence back costs live viewers nothing visible: a terminal shows nothing
 * of a sequence until its last byte.
 */
import { completeUtf8Length } from '../protocol/framing';

/** An unfinished sequence longer than this is let through (an image or a clipboard payload): memory stays bounded. */
export const MAX_HELD_SEQUENCE_BYTES = 16 * 1024;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;

/** Bytes that start a string (OSC, DCS, SOS, PM, APC), ended by ST (ESC \) or, for OSC, BEL. */
const STRING_STARTERS = new Set([0x5d /* ] */, 0x50 /* P */, 0x58 /* X */, 0x5e /* ^ */, 0x5f /* _ */]);

/**
 * Whether the escape sequence starting at `start` (an ESC with no ESC after it)
 * is finished within `bytes`. CAN and SUB cancel a sequence: nothing is pending then.
 */
function sequenceFinished(bytes: Uint8Array, start: number): boolean {
  let i = start + 1;
  if (i >= bytes.length) return false;
  const kind = bytes[i++];
  if (kind === 0x5b /* [ */) {
    for (; i < bytes.length; i++) {
      const b = bytes[i];
      if ((b >= 0x40 && b <= 0x7e) || b === CAN || b === SUB || b >= 0x80) return true;
    }
    return false;
  }
  if (STRING_STARTERS.has(kind)) {
    for (; i < bytes.length; i++) {
      const b = bytes[i];
      if ((b === BEL && kind === 0x5d) || b === CAN || b === SUB) return true;
    }
    return false;
  }
  // ESC, intermediates (0x20-0x2f), then a final byte: `ESC ( B`, `ESC # 8`; or ESC and a final byte: `ESC 7`.
  if (kind < 0x20 || kind > 0x2f) return true;
  while (i < bytes.length && bytes[i] >= 0x20 && bytes[i] <= 0x2f) i++;
  return i < bytes.length;
}

/** How many bytes at the end of `tail` begin something the next read completes. */
export function incompleteTailLength(tail: Uint8Array): number {
  const lastEsc = tail.lastIndexOf(ESC);
  if (lastEsc >= 0 && !sequenceFinished(tail, lastEsc)) return tail.length - lastEsc;
  const end = tail.subarray(Math.max(0, tail.length - 4));
  return end.length - completeUtf8Length(end);
}

/**
 * Removes from the end of `chunks` what the next read completes (see above)
 * and returns it as a copy (the reads it came from are not kept alive for it).
 */
export function cutIncompleteTail(chunks: Buffer[]): Buffer | undefined {
  // Back to the last ESC, within MAX_HELD_SEQUENCE_BYTES: nothing before it can be unfinished,
  // except a UTF-8 character in the last 4 bytes. A colour flood has an ESC in its last read.
  const last: Buffer[] = [];
  let have = 0;
  let sawEsc = false;
  for (let i = chunks.length - 1; i >= 0 && have < MAX_HELD_SEQUENCE_BYTES && !sawEsc; i--) {
    const c = chunks[i];
    const take = Math.min(c.length, MAX_HELD_SEQUENCE_BYTES - have);
    const piece = take === c.length ? c : c.subarray(c.length - take);
    last.unshift(piece);
    have += take;
    sawEsc = piece.includes(ESC);
  }
  const tail = last.length === 1 ? last[0] : sawEsc ? Buffer.concat(last, have) : lastBytes(last, 4);
  const cut = incompleteTailLength(tail);
  if (cut === 0) return undefined;
  const parts: Buffer[] = [];
  for (let left = cut; left > 0; ) {
    const c = chunks.pop() as Buffer;
    if (c.length <= left) {
      parts.unshift(c);
      left -= c.length;
    } else {
      parts.unshift(c.subarray(c.length - left));
      chunks.push(c.subarray(0, c.length - left));
      left = 0;
    }
  }
  return Buffer.concat(parts);
}

function lastBytes(pieces: Buffer[], n: number): Buffer {
  const out: number[] = [];
  for (let i = pieces.length - 1; i >= 0 && out.length < n; i--) {
    for (let j = pieces[i].length - 1; j >= 0 && out.length < n; j--) out.unshift(pieces[i][j]);
  }
  return Buffer.from(out);
}
