/**
 * A setting that holds a command line (`branch.<name>.mergeOptions`) split into words as git splits
 * it (alias.c split_cmdline): on spaces, tabs and line ends outside quotes; `'…'` and `"…"` quote,
 * the quotes themselves dropped; a backslash outside single quotes takes the next character as it
 * is. An unclosed quote or a backslash at the end is git's error, given back as a reason. Empty
 * words (git makes one of a leading or trailing space, or of `''`) are left out: they are no option.
 */
export type SplitCommandLine = { ok: true; words: string[] } | { ok: false; reason: string };

const SPACE = new Set([' ', '\t', '\n', '\r']);

export function splitCmdline(line: string): SplitCommandLine {
  const words: string[] = [];
  let word = '';
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === null && SPACE.has(c)) {
      words.push(word);
      word = '';
      while (i + 1 < line.length && SPACE.has(line[i + 1])) i++;
    } else if (quote === null && (c === "'" || c === '"')) {
      quote = c;
    } else if (c === quote) {
      quote = null;
    } else if (c === '\\' && quote !== "'") {
      if (i + 1 >= line.length) return { ok: false, reason: 'it ends in a backslash' };
      word += line[++i];
    } else {
      word += c;
    }
  }
  if (quote !== null) return { ok: false, reason: 'it has an unclosed quote' };
  words.push(word);
  return { ok: true, words: words.filter((w) => w !== '') };
}
