/**
 * Whether one path lies within another, judged on the paths as given (callers
 * resolve symlinks first where a link could lead out).
 */
import * as path from 'node:path';

/** `inner` is `outer` itself or lies inside it (`outer/../x` and a sibling `outer-2` do not). */
export function isWithin(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
