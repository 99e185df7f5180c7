/**
 * What a worktree holds, found by walking the file system rather than asking
 * git: `git status` cannot see ignored files, empty directories, unreadable
 * directories, or the insides of a nested repository, and each of those is
 * work a person can lose. Cleanup classifies every entry of this walk before
 * anything is removed (see classify.ts).
 *
 * The walk is asynchronous (libuv's thread pool does the syscalls), so it never
 * blocks the event loop of the process that runs it.
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';

export type EntryType = 'file' | 'symlink' | 'dir' | 'socket' | 'other';

export interface WalkEntry {
  /** Relative to the worktree, '/'-separated. */
  path: string;
  type: EntryType;
  size: number;
  /** Permission bits (mode & 0o7777). */
  mode: number;
  mtimeMs: number;
}

export interface NestedRepo {
  /** Relative path of the folder that has its own `.git`. */
  path: string;
  /** `.git` is a file naming a git dir elsewhere (a submodule, a linked worktree), not a folder. */
  gitFile: boolean;
}

export interface Walk {
  entries: WalkEntry[];
  /** Folders with a `.git` of their own below the worktree's root. */
  nested: NestedRepo[];
  /** Folders that could not be listed (what they hold cannot be seen, let alone saved). */
  unreadable: string[];
  /** Folders whose entries cannot be deleted (no write or search permission, a read-only mount). */
  undeletable: string[];
}

function typeOf(st: Stats): EntryType {
  if (st.isFile()) return 'file';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isSocket()) return 'socket';
  return 'other';
}

async function canDeleteIn(dir: string): Promise<boolean> {
  try {
    await fs.access(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Of `relPaths` (files below `root`), those that cannot be opened for reading. */
export async function unreadableFiles(root: string, relPaths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const rel of relPaths) {
    try {
      await fs.access(path.join(root, rel), constants.R_OK);
    } catch {
      out.push(rel);
    }
  }
  return out;
}

/**
 * Every entry below `root` except the worktree's own `.git` file, in
 * parents-before-children order. Symlinks are recorded, never followed.
 */
export async function walkWorktree(root: string): Promise<Walk> {
  const walk: Walk = { entries: [], nested: [], unreadable: [], undeletable: [] };
  // The worktree folder itself is removed from its parent.
  if (!(await canDeleteIn(path.dirname(root)))) walk.undeletable.push('.');
  const pending: string[] = [''];
  for (let next = 0; next < pending.length; next++) {
    const rel = pending[next];
    const abs = rel === '' ? root : path.join(root, rel);
    let names: string[];
    try {
      names = (await fs.readdir(abs)).sort();
    } catch {
      walk.unreadable.push(rel === '' ? '.' : rel);
      continue;
    }
    if (names.length > 0 && !(await canDeleteIn(abs))) walk.undeletable.push(rel === '' ? '.' : rel);
    if (rel !== '' && names.includes('.git')) {
      const gitStat = await fs.lstat(path.join(abs, '.git')).catch(() => undefined);
      if (gitStat) walk.nested.push({ path: rel, gitFile: !gitStat.isDirectory() });
    }
    for (const name of names) {
      if (rel === '' && name === '.git') continue;
      const childRel = rel === '' ? name : `${rel}/${name}`;
      let st: Stats;
      try {
        st = await fs.lstat(path.join(root, childRel));
      } catch {
        walk.unreadable.push(childRel);
        continue;
      }
      const type = typeOf(st);
      walk.entries.push({ path: childRel, type, size: type === 'dir' ? 0 : st.size, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs });
      if (type === 'dir') pending.push(childRel);
    }
  }
  return walk;
}
