/**
 * Which copied paths lie under a mount point inside the repository (an sshfs, NFS or FUSE mount
 * at `data/`, a file bind-mounted over `.env`). Only those are looked at and copied by the killable
 * helper child (smallCopy.ts): a file system that stopped answering holds a look at one of them for
 * good, even its lstat, and in-process that held the start and the process's exit (bug 214). Every
 * other path is on the repository's own file system, which git's listing just read, and is copied
 * in-process, 16 at once: a child for every start cost each about 300 ms (the review of bug 214).
 *
 * Mount points come from /proc/self/mountinfo, which the kernel writes from its own table: reading
 * it asks no file system anything, so it never blocks on a hung one. Linux only; elsewhere none.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isWithin } from '../common/paths';

/** The mount points at or below the repository (its path or its real path), relative to it ('' for the repository itself). */
export async function mountsInRepo(repo: string, repoReal: string): Promise<string[]> {
  if (process.platform !== 'linux') return [];
  const table = await fs.readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const found = new Set<string>();
  for (const line of table.split('\n')) {
    const point = line.split(' ')[4];
    if (point === undefined) continue;
    const mount = unescapeMountPath(point);
    for (const base of [path.resolve(repo), repoReal]) {
      if (isWithin(mount, base)) found.add(path.relative(base, mount).split(path.sep).join('/'));
    }
  }
  return [...found];
}

/** A path `rel` of the repository that lies at or under one of `mounts` (as `mountsInRepo` gives them). */
export function underMount(rel: string, mounts: readonly string[]): boolean {
  return mounts.some((m) => m === '' || rel === m || rel.startsWith(`${m}/`));
}

/** The kernel writes a space, tab, newline and backslash in a mount point as \040, \011, \012, \134. */
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
