/**
 * How deeply a record's fields this version does not know nest. A record nested thousands deep (an
 * unknown key holding `[[[[…]]]]`, bug 150) parses, but every write of it failed: JSON.stringify
 * overflowed the stack ("Maximum call stack size exceeded"), so cleanup, stop and each reader's repair
 * failed on it alone. Only the top level is loose (unknown keys are kept and written back); every known
 * field is checked by its schema, so only unknown keys can nest without bound, and only a record that
 * has one (sent to zod by the fast check) pays for the walk — not every record of a listing.
 */

/** Far past any record Paddock writes (a handful of levels), far below what JSON.stringify overflows at. */
export const MAX_RECORD_DEPTH = 64;

/** The record's depth counted as its text nests (the record's own object is level 1), over the keys not in `known`. */
export function unknownFieldsDepth(record: Record<string, unknown>, known: ReadonlySet<string>): number {
  let deepest = 1;
  for (const key of Object.keys(record)) {
    if (!known.has(key)) deepest = Math.max(deepest, 1 + valueDepth(record[key]));
  }
  return deepest;
}

/** How many objects and arrays deep `value` nests (0 for a plain value), walked without recursion. */
function valueDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return deepest;
}
