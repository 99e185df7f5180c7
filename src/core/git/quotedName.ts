/**
 * File names as git prints them in a patch's `---`/`+++` lines. git quotes a
 * name holding a byte outside printable ASCII (`café.md` becomes
 * `"b/caf\303\251.md"`, octal per byte), a quote, a backslash or a control
 * character, the way C does; a plain name that holds a space gets a TAB after
 * it (for GNU patch). Unquoted here to the name `git diff -z` lists, keeping
 * every byte (pathBytes.ts), so both listings name a file the same way.
 */
import { decodeName } from './pathBytes';

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** The name a patch header line's name field stands for (the field after `+++ ` or `--- `). */
export function patchHeaderName(header: string): string {
  // The TAB follows the name, quoted or not; a name ending in a TAB of its own is always quoted.
  const field = header.replace(/\t$/, '');
  if (!(field.length >= 2 && field.startsWith('"') && field.endsWith('"'))) return field;
  const bytes: number[] = [];
  const inner = field.slice(1, -1);
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = inner[i + 1] ?? '';
    const octal = /^[0-3][0-7]{2}/.exec(inner.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else if (next in ESCAPES) {
      bytes.push(ESCAPES[next]);
      i += 1;
    } else {
      bytes.push(92); // not an escape git writes: the backslash as it is
    }
  }
  return decodeName(Buffer.from(bytes));
}
