/**
 * Reading git's small files (`.git` files, `gitdir`, `commondir`, `HEAD`, refs) by path, in folders the
 * agent could write: its worktree and the repositories it made there (docs/reliability.md, bug 224).
 * `mkfifo sub/.git` in the agent's worktree made a plain `readFile` block in `open(2)` for ever,
 * waiting for a writer: the cleanup's confirmation never opened (Cancel did nothing, and the stuck
 * pool thread held even `process.exit`), and a cleanup sat in `capturing`. Here a path is stat'ed
 * first (links followed, as git follows them) and only a regular file is opened, non-blocking and
 * checked again on its descriptor (a FIFO swapped in between opens at once and is refused), with a
 * byte cap (a link to /dev/zero is never read). Anything else is refused as `readFile` fails: the
 * callers already take a failed read for "no such file".
 */
import { promises as fs, statSync } from 'node:fs';
import { NotRegularFileError, readRegularFile, readRegularFileSync } from '../store/regularFile';

/** Far above any file git writes of these (a path, a ref, a line of refs per branch) but packed-refs, which gets its own. */
export const GIT_FILE_CAP = 1024 * 1024;

type Kind = { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean };

/** The refusal of what is not a regular file: a folder keeps readFile's EISDIR (callers tell a `.git` folder by it). */
function refusal(file: string | Buffer, st: Kind): Error {
  const name = String(file);
  if (st.isDirectory()) return Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${name}'`), { code: 'EISDIR' });
  return new NotRegularFileError(name, st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device or something else');
}

function tooBig(file: string | Buffer, cap: number): Error {
  return Object.assign(new Error(`${String(file)} is over ${cap} bytes, more than git writes there; not read`), { code: 'EFBIG' });
}

/** `file`'s text (a Buffer path: bytes that are no UTF-8) when it is a regular file (links followed) of at most `cap` bytes; throws otherwise (ENOENT as readFile does). */
export async function readGitFileText(file: string | Buffer, cap = GIT_FILE_CAP, encoding: BufferEncoding = 'utf8'): Promise<string> {
  const st = await fs.stat(file);
  if (!st.isFile()) throw refusal(file, st);
  const bytes = await readRegularFile(file as string, cap);
  if (bytes === null) throw tooBig(file, cap);
  return bytes.toString(encoding);
}

/** `file`'s bytes when it is a regular file (an index, a kept git-dir file), uncapped; throws otherwise, as readGitFileText. */
export async function readGitBytes(file: string | Buffer): Promise<Buffer> {
  const st = await fs.stat(file);
  if (!st.isFile()) throw refusal(file, st);
  const bytes = await readRegularFile(file as string);
  if (bytes === null) throw tooBig(file, Number.MAX_SAFE_INTEGER);
  return bytes;
}

/** The synchronous form of {@link readGitFileText}. */
export function readGitFileTextSync(file: string | Buffer, cap = GIT_FILE_CAP): string {
  const st = statSync(file);
  if (!st.isFile()) throw refusal(file, st);
  const bytes = readRegularFileSync(file as string, cap);
  if (bytes === null) throw tooBig(file, cap);
  return bytes.toString('utf8');
}

/** packed-refs holds a line per ref: a repository with a million refs stays well under this. */
export const PACKED_REFS_CAP = 256 * 1024 * 1024;
