/**
 * Where control sockets live: a short per-user directory with mode 0700 (the
 * directory is the protection; socket file modes follow the umask). Node 20
 * silently truncates socket paths over 107 bytes, so every path is checked
 * before anything listens on it.
 */
import { createHash } from '../common/lazyCrypto';
import { lstat, lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { failure } from '../common/errors';
import { removeDeadSocket } from './asideSockets';
import { makeDirsSync } from '../common/makeDirs';

/** sun_path is 108 bytes on Linux and 104 on macOS, each including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'darwin' ? 103 : 107;
/** A socket file's name: 12 hex digits and `.sock` (socketFileName). */
const SOCKET_NAME_BYTES = 17;
/** The longest runtime dir its sockets fit in: the limit less a `/` and a socket file's name. */
export const MAX_RUNTIME_DIR_BYTES = MAX_SOCKET_PATH_BYTES - 1 - SOCKET_NAME_BYTES;
const advice = () => `set PADDOCK_RUNTIME_DIR to a directory of at most ${MAX_RUNTIME_DIR_BYTES} bytes, such as /tmp/paddock-${process.getuid?.() ?? 'user'}`;

export function runtimeDirFor(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PADDOCK_RUNTIME_DIR) return env.PADDOCK_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'paddock');
  // Not $TMPDIR: on macOS it is ~50 bytes long (/var/folders/…), too long for socket paths.
  return join('/tmp', `paddock-${process.getuid?.() ?? 'user'}`);
}

/** Creates the directory if needed and refuses one that another user could reach. */
export function ensureRuntimeDir(dir: string): string {
  checkRuntimeDir(dir);
  try {
    makeDirsSync(dir, 0o700);
  } catch (err) {
    throw failure(`Cannot create the socket directory ${dir}: ${(err as Error).message}.`);
  }
  const problem = socketDirProblem(dir);
  if (problem) throw failure(`${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
  return dir;
}

/**
 * Why `dir` is no socket directory of this user's (what makes a runtime dir one: a directory of this
 * user's that no one else can reach), as a sentence's lower-case body; null when it is one, or absent.
 * Asked where the directory is made, and by a client before it connects to the socket a record names
 * (bug 48): a record may not point it at a folder someone else could have put a socket in.
 */
export function socketDirProblem(dir: string): string | null {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    // Not there (yet: a worker makes it after its claim): nothing listens there, so a connection just fails.
    return null;
  }
  return dirProblem(dir, st);
}

/** socketDirProblem without blocking the event loop (a window's reads and writes of a record ask it). */
export function socketDirProblemAsync(dir: string): Promise<string | null> {
  return new Promise((resolve) => lstat(dir, (err, st) => resolve(err ? null : dirProblem(dir, st))));
}

function dirProblem(dir: string, st: Stats): string | null {
  const uid = process.getuid?.();
  if (!st.isDirectory()) return `the socket directory ${dir} is not a directory`;
  if (uid !== undefined && st.uid !== uid) return `the socket directory ${dir} belongs to another user (uid ${st.uid}); refusing to use it`;
  // Someone loosened it: another user may have planted files there, so do not just chmod it back.
  if ((st.mode & 0o077) !== 0) return `the socket directory ${dir} is accessible to other users (mode ${(st.mode & 0o777).toString(8)}); run chmod 700 on it`;
  return null;
}

/** Short, stable, collision-resistant file name for a job's execution. */
export function socketFileName(jobId: string, generation: number): string {
  const hash = createHash('sha256').update(`${jobId}:${generation}`).digest('hex').slice(0, 12);
  return `${hash}.sock`;
}

export function checkSocketPath(path: string): string {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw failure(`The socket path ${shown(path)} is ${bytes} bytes, longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket allows; ${advice()}.`);
  }
  return path;
}

/**
 * A runtime dir its sockets would not fit in is refused before anything is made in it (bug 175): made
 * first, a name over 255 bytes failed as *its name is too long*, and one whose socket path passed the
 * record's 200 characters failed the worker's claim, said only as *worker exited before it started*.
 */
export function checkRuntimeDir(dir: string): string {
  const bytes = Buffer.byteLength(join(dir, 'x'.repeat(SOCKET_NAME_BYTES))) - 1 - SOCKET_NAME_BYTES;
  if (bytes > MAX_RUNTIME_DIR_BYTES) {
    throw failure(`The socket directory ${shown(dir)} is ${bytes} bytes, too long for a socket path in it (at most ${MAX_SOCKET_PATH_BYTES} bytes); ${advice()}.`);
  }
  return dir;
}

/** A path said whole up to a few lines' length; a longer one by its start and end. */
function shown(path: string): string {
  return path.length <= 160 ? path : `${path.slice(0, 80)}…${path.slice(-60)}`;
}

/** The socket path for a job's execution, validated for length (the directory is not created). */
export function socketPathFor(jobId: string, generation: number, env: NodeJS.ProcessEnv = process.env): string {
  return checkSocketPath(join(runtimeDirFor(env), socketFileName(jobId, generation)));
}

/**
 * Removes the socket files a job's executions left behind (a SIGKILLed worker cannot unlink its
 * own), once the caller has proven the job's processes gone; returns how many were removed. Only a
 * socket nothing serves (a refused connection: ECONNREFUSED) is removed, and only if it is still the
 * file judged: the name is derived from the job and generation, and whatever now listens there (a
 * worker started again meanwhile, another program) is not the dead worker's to remove. Moved away
 * before it is unlinked (`removeDeadSocket`), and without blocking: a window's cleanup runs it.
 */
export async function removeJobSockets(jobId: string, generations: number, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let removed = 0;
  for (let generation = 1; generation <= generations; generation++) {
    const file = join(runtimeDirFor(env), socketFileName(jobId, generation));
    try {
      if (await removeDeadSocket(file)) removed++;
    } catch {
      // absent, or already gone: nothing to do
    }
  }
  return removed;
}
