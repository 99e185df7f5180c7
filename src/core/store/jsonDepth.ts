/**
 * How deeply a JSON text nests, found without parsing it. A record nested thousands deep (an unknown key
 * holding `[[[[…]]]]`, bug 150) parses, but every write of it failed: JSON.stringify overflowed the stack
 * ("Maximum call stack size exceeded"), so cleanup, stop and each reader's repair failed on it alone.
 */

/** Far past any record Paddock writes (a handful of levels), far below what JSON.stringify overflows at. */
export const MAX_RECORD_DEPTH = 64;

/** The deepest nesting of objects and arrays in `text` (valid JSON or not: brackets inside strings are skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}
