/**
 * The file-system reads and writes of the walks that find nested repositories and link their
 * checkouts (nestedGitEntries.ts, outsideWorktrees.ts, nestedLinks.ts, linkFiles.ts), on paths that
 * keep every byte (pathBytes.ts). Node reads names, real paths and file text as UTF-8 by default,
 * each invalid byte becoming U+FFFD: a folder named `bad\xff` then named no folder, and a
 * repository in it was passed over by the confirmation, the cleanup's summary and restore (bug 199).
 * Every path given here is a `decodeName` string; every one returned is too; links git writes
 * (`gitdir: …`) are read and written as their bytes.
 */
import { promises as fs, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from '../common/lazyCrypto';
import { writeFileDurable } from '../store/durable';
import { decodeName, encodeName, fsPath } from './pathBytes';
import { readGitBytes, readGitFileText } from './gitFileText';

/** One entry of a folder: its name (bytes kept) and whether it is a real folder (not a link). */
export interface Entry {
  name: string;
  isDirectory: boolean;
  isFile: boolean;
  isSymbolicLink: boolean;
}

/** The entries of `dir`, or [] when it cannot be read. */
export async function listEntries(dir: string): Promise<Entry[]> {
  const found = await fs.readdir(encodeName(dir), { withFileTypes: true, encoding: 'buffer' }).catch(() => []);
  return found.map((e) => ({ name: decodeName(e.name), isDirectory: e.isDirectory(), isFile: e.isFile(), isSymbolicLink: e.isSymbolicLink() }));
}

/** The names in `dir`, or [] when it cannot be read. */
export async function listNames(dir: string): Promise<string[]> {
  return (await listEntries(dir)).map((e) => e.name);
}

/** `lstat` of `p`, or null when there is nothing to stat. */
export function lstatOf(p: string): Promise<Stats | null> {
  return fs.lstat(fsPath(p)).catch(() => null);
}

/** The real path of `p` (links resolved, bytes kept), or `fallback`. */
export async function realPathOf<T>(p: string, fallback: T): Promise<string | T> {
  return fs.realpath(encodeName(p), { encoding: 'buffer' }).then(decodeName, () => fallback);
}

/** The text of `file` with its bytes kept (a path git wrote), or `fallback` when it cannot be read. */
export async function readPathText<T>(file: string, fallback: T): Promise<string | T> {
  // Only a regular file, opened non-blocking: a FIFO the agent named `.git` hung the cleanup (bug 224).
  return readGitBytes(encodeName(file)).then(decodeName, () => fallback);
}

/** The text of `file` read as latin1 (git's ref and reflog files: ids and ASCII), or '' when it cannot be read. */
export async function readLatin1(file: string): Promise<string> {
  return readGitFileText(fsPath(file), Number.MAX_SAFE_INTEGER, 'latin1').catch(() => '');
}

/** Whether `p` exists (links followed). */
export function existsAt(p: string): Promise<boolean> {
  return fs.access(fsPath(p)).then(() => true, () => false);
}

/**
 * `text` (bytes kept) into `file` as a new file renamed over it, fsynced, the folder fsynced, mode
 * `mode` under the umask: a symbolic link there is replaced, never written through. A path that is
 * text takes the store's one durable write; one with raw bytes, the same steps on its bytes.
 */
export async function replaceWithText(file: string, text: string, mode: number): Promise<void> {
  const data = encodeName(text);
  if (typeof fsPath(file) === 'string') return writeFileDurable(file, data, mode);
  const dir = encodeName(path.dirname(file));
  const temp = Buffer.concat([dir, Buffer.from(`/.tmp-paddock-link.${process.pid}.${randomBytes(4).toString('hex')}`)]);
  const handle = await fs.open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, encodeName(file));
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  const folder = await fs.open(dir, 'r').catch(() => null); // a folder that cannot be opened: see durable.ts's fsyncDir
  if (folder) await folder.sync().finally(() => folder.close());
}

/**
 * Runs `use` with a path git can be given for `p`: `p` itself when it is text; otherwise a symbolic
 * link to it named in text, in a fresh folder made in `holderIn` (default: the temp folder) and
 * removed afterwards (the link only, never what it leads to). git's arguments, working folder and
 * environment reach it as UTF-8, where a raw byte becomes U+FFFD: another path, perhaps another's
 * git dir (a registration `worktrees/bad\xff` acted on as the person's `worktrees/bad\ufffd`).
 */
export async function withTextPath<T>(p: string, use: (textPath: string) => Promise<T>, holderIn = os.tmpdir()): Promise<T> {
  if (typeof fsPath(p) === 'string') return use(p);
  const holder = await fs.mkdtemp(path.join(holderIn, '.paddock-alias-'));
  try {
    const alias = path.join(holder, path.basename(p).replace(/[\uDC80-\uDCFF]/g, '_') || 'alias');
    await fs.symlink(encodeName(path.resolve(p)), alias);
    return await use(alias);
  } finally {
    await fs.rm(holder, { recursive: true, force: true });
  }
}
