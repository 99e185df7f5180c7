/** A plain main working tree, recognised from git's files with no process. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { realPathOr } from '../common/paths';

/**
 * `dir` when it is the top of a main working tree of the plainest layout, from git's files with
 * no process (every start asks, and a process costs ~5 ms of the caller's event loop here): its
 * `.git` is a real git folder (HEAD, objects, refs; no `commondir`), owned by this user (git's
 * safe.directory rule), whose config names no other working tree and is not bare and includes
 * no other file. Its real path, as git lists it. Undefined for anything else: ask git then.
 */
export async function mainWorktreeFromFiles(dir: string): Promise<string | undefined> {
  const dotGit = path.join(dir, '.git');
  const [top, gitDir, head, objects, refs, commondir, config] = await Promise.all([
    fs.stat(dir),
    fs.lstat(dotGit),
    fs.lstat(path.join(dotGit, 'HEAD')),
    fs.stat(path.join(dotGit, 'objects')),
    fs.stat(path.join(dotGit, 'refs')),
    fs.lstat(path.join(dotGit, 'commondir')).then(() => true, () => false),
    fs.readFile(path.join(dotGit, 'config'), 'utf8'),
  ]).catch(() => []);
  if (!top || !gitDir || !head || !objects || !refs || config === undefined) return undefined;
  if (!gitDir.isDirectory() || !head.isFile() || !objects.isDirectory() || !refs.isDirectory() || commondir) return undefined;
  const uid = process.getuid?.();
  if (uid === undefined || top.uid !== uid || gitDir.uid !== uid) return undefined;
  // Any `worktree` key, per-worktree config, a `bare` that is not plainly false, or an included file: git decides.
  if (/^\s*worktree(config)?\s*=/im.test(config) || /^\s*bare\b(?!\s*=\s*false\s*$)/im.test(config) || /^\s*\[\s*include/im.test(config)) return undefined;
  return realPathOr(dir, undefined);
}
