/**
 * Text as words for any POSIX shell (dash, BSD sh, bash, zsh), for commands the person may paste
 * into whichever shell they have. shellQuote.ts's `$'…'` is bash's and zsh's only: dash reads
 * `$'bad\xff'` as a `$` and the text `bad\xff`, so advice naming a folder `bad\xff` gave mktemp
 * `$/tmp/…` (bug 198). Here a word that does not print as it is comes from printf, whose format
 * spells each byte that would not print in octal (a lone U+DC80–U+DCFF as the raw byte it stands for,
 * pathBytes.ts; anything else as its UTF-8 bytes), so it is the path's exact bytes in any locale.
 */
import { isPrintable } from './printable';
import { pathCharBytes, singleQuoted } from './shellQuote';

/** One character in a printf format: itself when it prints, else its bytes as `\ooo`. */
function formatChar(c: string): string {
  if (c === '\\') return '\\\\';
  if (c === '%') return '%%';
  if (c === "'") return "'\\''";
  if (c === '\n') return '\\n';
  if (isPrintable(c)) return c;
  return pathCharBytes(c)
    .map((b) => `\\${b.toString(8).padStart(3, '0')}`)
    .join('');
}

/** A single-quoted printf format (no conversions) that prints exactly `text`. */
export function printfFormat(text: string): string {
  let out = '';
  for (const c of text) out += formatChar(c);
  return `'${out}'`;
}

/**
 * `text` as one word: single-quoted when every character prints, else the output of `printf`.
 * Null when that cannot be exact: a command substitution drops trailing newlines.
 */
export function posixWord(text: string): string | null {
  if (isPrintable(text)) return singleQuoted(text);
  if (text.endsWith('\n')) return null;
  return `"$(printf ${printfFormat(text)})"`;
}
