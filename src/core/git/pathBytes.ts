/**
 * File names are bytes, not text: an agent can create `bad\xffname`, which no
 * UTF-8 string can name. Read as UTF-8, such a name becomes `bad\ufffdname`, a
 * path that does not exist — the walk then thinks it cannot be read, removal
 * thinks it cannot be deleted, and the snapshot (which git made from the real
 * bytes) seems not to hold it.
 *
 * Names are carried as strings that keep every byte ("surrogate escapes", as
 * Python's os.fsdecode does): valid UTF-8 decodes as usual, so every name that
 * is text stays exactly the string it always was, and each byte of an invalid
 * sequence becomes the lone surrogate U+DC80–U+DCFF, which no valid UTF-8 can
 * produce. `encodeName` gives the bytes back; `printable` shows such a byte as `\xff`.
 */

/** Lone low surrogates that stand for one raw byte each. */
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;
const ESCAPED_BYTES = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/** Length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none. */
function sequenceAt(buf: Uint8Array, i: number): number {
  const b = buf[i];
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < buf.length && buf[i + k] >= lo && buf[i + k] <= hi;
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    // No overlong forms (E0 80–9F) and no surrogates (ED A0–BF).
    const ok = b === 0xe0 ? cont(1, 0xa0) : b === 0xed ? cont(1, 0x80, 0x9f) : cont(1);
    return ok && cont(2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const ok = b === 0xf0 ? cont(1, 0x90) : b === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1);
    return ok && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** A name (or a NUL-separated list of them) as a string that keeps every byte. */
export function decodeName(buf: Buffer): string {
  const text = buf.toString('utf8');
  // Valid UTF-8 (almost every name): the ordinary string. U+FFFD may be the name's own character, so check.
  if (!text.includes('\ufffd')) return text;
  let out = '';
  let start = 0;
  let i = 0;
  while (i < buf.length) {
    const n = sequenceAt(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buf.toString('utf8', start, i) + String.fromCharCode(0xdc00 + buf[i]);
    i++;
    start = i;
  }
  return out + buf.toString('utf8', start, buf.length);
}

/** The bytes a `decodeName` string stands for. */
export function encodeName(name: string): Buffer {
  if (!ESCAPED_BYTE.test(name)) return Buffer.from(name, 'utf8');
  const parts: Buffer[] = [];
  let start = 0;
  for (const m of name.matchAll(ESCAPED_BYTES)) {
    parts.push(Buffer.from(name.slice(start, m.index), 'utf8'), Buffer.from([m[0].charCodeAt(0) - 0xdc00]));
    start = m.index + 1;
  }
  parts.push(Buffer.from(name.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

/** A path for the fs module: the string itself unless it holds raw bytes, then those bytes. */
export function fsPath(p: string): string | Buffer {
  return ESCAPED_BYTE.test(p) ? encodeName(p) : p;
}
