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
import { lstatSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from '../common/lazyCrypto';
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

/** Names of Unix sockets bound now (Linux); undefined where the kernel does not say. */
function boundSocketNames(): Set<string> | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/net/unix', 'utf8');
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
function ownerGone(name: string, bound: () => Set<string> | undefined): boolean {
  const m = ASIDE.exec(name);
  if (m) return !processExists(parseInt(m[1], 36));
  if (!OLD_ASIDE.test(name)) return false;
  const names = bound();
  return names !== undefined && !names.has(name);
}

/**
 * Removes the aside socket files in `dir` whose owner is provably gone and that nothing serves;
 * returns their paths. Anything unreadable, or changed meanwhile, is left.
 */
export async function removeDeadAsides(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => ASIDE.test(n) || OLD_ASIDE.test(n));
  } catch {
    return [];
  }
  let bound: Set<string> | undefined | null = null;
  const boundOnce = () => (bound === null ? (bound = boundSocketNames()) : bound);
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const before = lstatSync(path);
      if (!before.isSocket() || !ownerGone(name, boundOnce)) continue;
      if ((await probeSocket(path)) !== 'dead') continue;
      const now = lstatSync(path);
      if (now.dev !== before.dev || now.ino !== before.ino) continue;
      unlinkSync(path);
      removed.push(path);
    } catch {
      // gone or unreadable meanwhile: not ours to judge now
    }
  }
  return removed;
}
