/**
 * Hard links inside the worktree (two paths, one inode): the snapshot and the
 * archive hold each path's bytes on its own, so restore wrote them as separate
 * files, and an edit through one name no longer shows through the other. The
 * walk recorded every entry's inode, so the paths that shared one at capture are
 * linked again — only when the bytes restored at each are the same (anything
 * else is said, never overwritten). The files are restore's own, just written.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from './evidenceManifest';
import { fsPath } from './pathBytes';

type Entry = Manifest['entries'][number];

const CHUNK = 1024 * 1024;

/** Whether two files hold the same bytes, read a chunk at a time (either may be large). */
async function sameBytes(a: string, b: string): Promise<boolean> {
  const [fa, fb] = await Promise.all([fs.open(fsPath(a), 'r'), fs.open(fsPath(b), 'r')]);
  try {
    const [ba, bb] = [Buffer.alloc(CHUNK), Buffer.alloc(CHUNK)];
    for (;;) {
      const [ra, rb] = await Promise.all([fa.read(ba, 0, CHUNK, null), fb.read(bb, 0, CHUNK, null)]);
      if (ra.bytesRead !== rb.bytesRead || !ba.subarray(0, ra.bytesRead).equals(bb.subarray(0, rb.bytesRead))) return false;
      if (ra.bytesRead === 0) return true;
    }
  } finally {
    await Promise.all([fa.close(), fb.close()]);
  }
}

/**
 * The files the walk found sharing an inode on one device (and size), each group in walk order. An
 * inventory older than the device's recording groups by inode alone, as it always did: a folder
 * mounted inside the worktree could then pair two files that merely share an inode number.
 */
function linkedGroups(entries: readonly Entry[]): Entry[][] {
  const byInode = new Map<string, Entry[]>();
  for (const e of entries) {
    if (e.type !== 'file' || !e.ino) continue;
    const key = `${e.dev ?? ''}:${e.ino}:${e.size}`;
    const group = byInode.get(key);
    if (group) group.push(e);
    else byInode.set(key, [e]);
  }
  return [...byInode.values()].filter((g) => g.length > 1);
}

/** Links again the restored files that were one at capture; returns what could not be, in sentences. */
export async function relinkHardLinks(target: string, entries: readonly Entry[]): Promise<string[]> {
  const problems: string[] = [];
  for (const [first, ...others] of linkedGroups(entries)) {
    const source = path.join(target, first.path);
    const sourceStat = await fs.lstat(fsPath(source)).catch(() => null);
    if (!sourceStat?.isFile()) continue; // not restored (dropped at cleanup, or inside a nested checkout that moved it)
    for (const other of others) {
      const dest = path.join(target, other.path);
      const st = await fs.lstat(fsPath(dest)).catch(() => null);
      if (!st?.isFile() || st.ino === sourceStat.ino) continue;
      const why = !(await sameBytes(source, dest).catch(() => false))
        ? 'they came back with different bytes'
        : await linkOver(source, dest).then(
            () => null,
            (err: NodeJS.ErrnoException) => `the file system could not link them (${err.code ?? 'error'})`,
          );
      if (why) problems.push(`${other.path} and ${first.path} were one file (hard links); they are two files now: ${why}`);
    }
  }
  return problems;
}

/** `dest` becomes another name of `source`: a link made beside it, renamed over it. */
async function linkOver(source: string, dest: string): Promise<void> {
  const temp = `${dest}.paddock-link-${randomBytes(4).toString('hex')}`;
  await fs.link(fsPath(source), fsPath(temp));
  try {
    await fs.rename(fsPath(temp), fsPath(dest));
  } catch (err) {
    await fs.rm(fsPath(temp), { force: true });
    throw err;
  }
}
