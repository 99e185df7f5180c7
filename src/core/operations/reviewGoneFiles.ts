/**
 * Which commented files are no longer in the agent's worktree. A comment names a file and a line of
 * the agent's version when it was written; an agent that deleted or renamed that file since was sent
 * `old/name.ts:12: …` as if it were still there, and looked for a file it no longer has (bug 180).
 * The prompt says so of each such comment instead.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Of `paths` (relative, forward slashes, never climbing out: the review's schema), those with nothing, or a folder, at them in `worktree`. */
export async function goneFiles(worktree: string, paths: Iterable<string>): Promise<Set<string>> {
  const gone = new Set<string>();
  for (const rel of new Set(paths)) {
    try {
      // lstat: a symbolic link the agent left at the path is its file, wherever it leads. A folder
      // there now is not the file the comment was on (the file became a folder): it is gone too.
      const found = await fs.lstat(path.join(worktree, ...rel.split('/')));
      if (found.isDirectory()) gone.add(rel);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Anything else (EACCES, EIO) says nothing of whether the file is there: the comment goes as it is.
      if (code === 'ENOENT' || code === 'ENOTDIR') gone.add(rel);
    }
  }
  return gone;
}
