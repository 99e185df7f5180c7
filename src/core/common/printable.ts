/**
 * Text that Paddock did not write (titles, prompts, holders' command lines,
 * errors from git or the agent) made safe to print on a terminal or show in
 * the UI: every control character is shown, not obeyed. Otherwise a title
 * could write the clipboard (OSC 52), rename the window (OSC 0), clear the
 * screen or fake a row of `paddock list` with a newline.
 *
 * One notation everywhere, the one people know from C and JSON: `\n`, `\r`,
 * `\x1b`, `\x7f`, `\u009b`. A TAB becomes a space. Bidirectional overrides
 * (which reorder what is shown) are spelled out the same way.
 */

/* eslint-disable no-control-regex -- finding control characters is this module's job */
// A lone U+DC80–U+DCFF is a raw byte of a file name that is not UTF-8 (src/core/git/pathBytes.ts): shown as that byte.
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;
const UNPRINTABLE_TEST = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': ' ' };

function shown(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  if (code >= 0xdc80 && code <= 0xdcff) return `\\x${(code - 0xdc00).toString(16)}`;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character shown as an escape (`\x1b`, `\n`), so it cannot act on a terminal. */
export function printable(text: string): string {
  return UNPRINTABLE_TEST.test(text) ? text.replace(UNPRINTABLE, shown) : text;
}

/** Whether `text` would print as it is (nothing for `printable` to change). */
export function isPrintable(text: string): boolean {
  return !UNPRINTABLE_TEST.test(text);
}
