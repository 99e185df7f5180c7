/**
 * Text quoted for the person's shell, for a command they are told to run: single quotes, or, when
 * it holds a control character (a newline in a path), bash's and zsh's `$'…'`. There every
 * character that would not print is written as its UTF-8 bytes (`\xc2\x85`), never `\x85` (one byte,
 * another file name) nor `\uXXXX` (left as those six characters under LC_ALL=C), and a lone
 * U+DC80–U+DCFF as the raw byte it stands for (pathBytes.ts), so the word is the path's exact bytes
 * in any locale.
 * Not for scripts run by sh (launcherScript.ts has its own): dash has no `$'…'`.
 */
import { isPrintable } from './printable';

const NAMED: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function hexBytes(bytes: Iterable<number>): string {
  let out = '';
  for (const b of bytes) out += `\\x${b.toString(16).padStart(2, '0')}`;
  return out;
}

/**
 * The bytes one character (a code point, a surrogate pair kept whole) stands for in a path: a lone
 * U+DC80–U+DCFF the raw byte it stands for (pathBytes.ts), anything else its UTF-8 bytes.
 */
export function pathCharBytes(c: string): readonly number[] {
  const code = c.charCodeAt(0);
  if (c.length === 1 && code >= 0xdc80 && code <= 0xdcff) return [code - 0xdc00];
  return [...Buffer.from(c, 'utf8')];
}

/** `text` that prints as it is, single-quoted for any shell. */
export function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One character in `$'…'`. */
function escaped(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  if (isPrintable(c)) return c;
  return hexBytes(pathCharBytes(c));
}

/** `text` as one word for sh; never clipped (a shortened path would name another file). */
export function shellQuote(text: string): string {
  if (isPrintable(text)) return singleQuoted(text);
  let out = '';
  for (const c of text) out += escaped(c);
  return `$'${out}'`;
}

/** A command the person may run, shown inline in backticks when short enough, else null (the caller names it without its paths). */
export function inlineCommand(words: readonly string[], max: number): string | null {
  const text = words.join(' ');
  return text.length <= max ? `\`${text}\`` : null;
}
