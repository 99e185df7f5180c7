/**
 * Path rules every part shares: whether one path lies within another (judged
 * on the paths as given: callers resolve symlinks first where a link could lead
 * out), and a path's real path with an explicit fallback.
 */
import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** `inner` is `outer` itself or lies inside it (`outer/../x` and a sibling `outer-2` do not). */
export function isWithin(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * `p` with its symbolic links resolved, or `fallback` when it cannot be (gone, not searchable, a
 * loop): every error falls back, none propagates. Callers for whom an error means something
 * (a refusal, a reason to report) call `fs.realpath` themselves.
 */
export function realPathOr<T>(p: string, fallback: T): Promise<string | T> {
  return fs.realpath(p).catch(() => fallback);
}

/** `realPathOr`, blocking: for callers that must answer synchronously (keep it off hot paths). */
export function realPathOrSync<T>(p: string, fallback: T): string | T {
  try {
    return realpathSync(p);
  } catch {
    return fallback;
  }
}

/** As `existsSync` (which follows symlinks), without blocking: code that may run on the extension host. */
export function pathExists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}
