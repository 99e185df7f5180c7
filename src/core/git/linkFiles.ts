/**
 * The one way Paddock links a checkout to its registration in a repository: it writes the two
 * files `git worktree repair` would, for that checkout only — the checkout's `.git` file and the
 * registration's `gitdir`. Never `git worktree repair` itself: whatever path it is given, it also
 * repairs EVERY checkout the repository registers, rewriting each `.git` that names another git
 * dir; a person's worktree that now belongs to another clone (or a copy's registration of it)
 * would be taken over, and its next commits would go into the wrong repository.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { printable } from '../common/printable';
import { fsPath } from './pathBytes';
import { readPathText, realPathOf, replaceWithText } from './byteFs';

/** The mode git gives the files it writes (`.git`, `gitdir`), before the umask. */
const GIT_FILE_MODE = 0o666;

/**
 * `text` into `file` through the one durable write (temp file, fsync, rename, fsync of the folder):
 * a symbolic link there is replaced, never written through, and a crash leaves the old file or the
 * new one. Mode 0666 under the umask, as git writes these files (0644 by default), not the store's 0600.
 * Paths, in the name and in the text, keep their bytes (byteFs.ts, bug 199).
 */
export function replaceFile(file: string, text: string): Promise<void> {
  return replaceWithText(file, text, GIT_FILE_MODE);
}

/**
 * Links `folder` to the registration `adminDir` (`<common>/worktrees/<id>`). Its `.git` must be a
 * plain file or absent: a folder or a symbolic link there is someone's, and is refused (thrown).
 * The registration's `gitdir` is written only when it names another place (symbolic links
 * resolved), so a registration already naming the folder is left byte for byte.
 */
export async function writeLinkFiles(folder: string, adminDir: string): Promise<void> {
  const dotGit = path.join(folder, '.git');
  const st = await fs.lstat(fsPath(dotGit)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (st !== null && !st.isFile()) throw new Error(`${printable(dotGit)} is not a file`);
  const realAdmin = await realPathOf(adminDir, null);
  const realFolder = await realPathOf(folder, null);
  if (realAdmin === null || realFolder === null) throw new Error(`${printable(realAdmin === null ? adminDir : folder)} cannot be read`);
  const realDotGit = path.join(realFolder, '.git');
  const back = (await readPathText(path.join(realAdmin, 'gitdir'), '')).replace(/\r?\n$/, '');
  const backReal = back ? path.join(await realPathOf(path.dirname(path.resolve(realAdmin, back)), ''), '.git') : '';
  if (backReal !== realDotGit) await replaceFile(path.join(realAdmin, 'gitdir'), `${realDotGit}\n`);
  await replaceFile(realDotGit, `gitdir: ${realAdmin}\n`);
}
