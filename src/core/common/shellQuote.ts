/**
 * Text quoted for the person's shell, for a command they are told to run: single quotes, or, when
 * it holds a control character (a newline in a path), bash's and zsh's `$'…'`, whose escapes are
 * `printable()`'s (a TAB spelled `\t`, not the space it shows), so it is safe to show and runnable.
 * Not for scripts run by sh (launcherScript.ts has its own): dash has no `$'…'`.
 */
import { isPrintable, printable } from './printable';

/** `text` as one word for sh; never clipped (a shortened path would name another file). */
export function shellQuote(text: string): string {
  if (isPrintable(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  return `$'${printable(text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\t/g, '\\t'))}'`;
}

/** A command the person may run, shown inline in backticks when short enough, else null (the caller names it without its paths). */
export function inlineCommand(words: readonly string[], max: number): string | null {
  const text = words.join(' ');
  return text.length <= max ? `\`${text}\`` : null;
}
