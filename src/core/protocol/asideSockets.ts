/**
 * The private names a worker binds its control socket to before linking it into place
 * (worker/socketFile.ts). A worker killed between the two leaves its aside file behind, and nothing
 * else ever names it: whoever sweeps the runtime dir (a worker as it starts listening, a cleanup)
 * removes it, but only once its owner is provably gone, never one a live worker is about to link.
 *
 * The name carries the owner's pid: `.<pid in base 36>-<random hex>`. A pid that no longer exists
 * proves its owner gone (a pid reused meanwhile only keeps the file longer). Names from before
 * (`.<hex>`, no pid) are judged on Linux by the kernel's list of bound Unix sockets: a path no socket
 * is bound to has no owner. Either way the file must also refuse connections (ECONNREFUSED), and is
 * removed only if it is still the very file judged (device and inode).
 */
import { link, lstat, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from '../common/lazyCrypto';
import { fileIdOf, isSameFile } from './fileIdentity';
import { probeSocket } from './socketProbe';

const ASIDE = /^\.([0-9a-z]{1,8})-[0-9a-f]{4,}$/;
const OLD_ASIDE = /^\.[0-9a-f]{12,}$/;

/** `.<pid36>-<hex>`, `length` characters after the dot (at least 4 of them random). */
export function asideName(pid: number, length: number): string {
  const owner = pid.toString(36);
  const chars = Math.max(length - owner.length - 1, 4);
  return `.${owner}-${randomBytes(chars).toString('hex').slice(0, chars)}`;
}

/** Whether process `pid` exists (a zombie does: not provably gone yet). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Names of Unix sockets bound now (Linux); undefined where the kernel does not say. Read without blocking (a window's cleanup runs this). */
async function boundSocketNames(): Promise<Set<string> | undefined> {
  let text: string;
  try {
    text = await readFile('/proc/net/unix', 'utf8');
  } catch {
    return undefined;
  }
  const names = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    const path = line.trim().split(/\s+/)[7];
    if (path) names.add(path.slice(path.lastIndexOf('/') + 1));
  }
  return names;
}

/** Whether the owner of aside file `name` is provably gone (not yet whether its file refuses connections). */
async function ownerGone(name: string, bound: () => Promise<Set<string> | undefined>): Promise<boolean> {
  const m = ASIDE.exec(name);
  if (m) return !processExists(parseInt(m[1], 36));
  if (!OLD_ASIDE.test(name)) return false;
  const names = await bound();
  return names !== undefined && !names.has(name);
}

/**
 * Removes the aside socket files in `dir` whose owner is provably gone and that nothing serves;
 * returns their paths. Anything unreadable, or changed meanwhile, is left. Without blocking: a
 * cleanup in a window runs it on the extension host's event loop.
 */
export async function removeDeadAsides(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => ASIDE.test(n) || OLD_ASIDE.test(n));
  } catch {
    return [];
  }
  let bound: Promise<Set<string> | undefined> | undefined;
  const boundOnce = () => (bound ??= boundSocketNames());
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (!(await ownerGone(name, boundOnce))) continue;
      if (await removeDeadSocket(path)) removed.push(path);
    } catch {
      // gone or unreadable meanwhile: not ours to judge now
    }
  }
  return removed;
}

/**
 * Removes the socket file at `path` if nothing serves it (a refused connection, ECONNREFUSED), and
 * only that very file. A worker may put its live socket at the path at any moment (a rename over a
 * dead one, a link into an empty path), so the file is not unlinked by its name: it is first moved
 * to a name of this process's own (`asideName`: no sweeper takes it while this process lives), then
 * judged there — the file judged (device and inode), refusing still — and unlinked there; a worker
 * placing its socket meanwhile finds the path free. What was moved and is not that file, or is
 * served now, is put back, never over a file placed since (then it stays under this process's name,
 * removed by a later sweep once this process is gone, if nothing serves it). What remains: a live
 * socket renamed over the path between the judgement and the move is away from its path until it is
 * put back, microseconds; a client connecting then is refused (ENOENT), as while a worker re-listens.
 * `raced`: a test's stand-in for a worker acting at the two moments that matter.
 */
export async function removeDeadSocket(path: string, raced?: (stage: 'judged' | 'moved') => Promise<void>): Promise<boolean> {
  const found = await lstat(path);
  const judged = fileIdOf(found);
  if (!found.isSocket() || (await probeSocket(path)) !== 'dead') return false;
  await raced?.('judged');
  const held = join(dirname(path), asideName(process.pid, 12));
  try {
    await rename(path, held);
  } catch {
    return false; // gone meanwhile
  }
  await raced?.('moved');
  const moved = await lstat(held).catch(() => undefined);
  if (!moved) return false;
  if (isSameFile(moved, judged) && (await probeSocket(held)) === 'dead') {
    await unlink(held);
    return true;
  }
  await putBack(held, path);
  return false;
}

/** Puts a file moved away by mistake back at `path`, only where the path is still free. */
async function putBack(held: string, path: string): Promise<void> {
  try {
    await link(held, path);
    await unlink(held);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    // A file system without hard links to sockets: a rename, once the path is seen free.
    if (await lstat(path).then(() => true, () => false)) return;
    await rename(held, path).catch(() => undefined);
  }
}
