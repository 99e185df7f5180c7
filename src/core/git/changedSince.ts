/**
 * Whether a folder still holds exactly what an earlier walk of it saw. Cleanup
 * removes a worktree only after capturing it, but a process that escaped the
 * agent's marker, an editor's auto-save or a sync tool may write into it
 * between the capture and the removal: those bytes would be deleted unsaved.
 * Every entry now there must have been seen, as the same type, and every file
 * or symlink with the same size, modification time, inode and status-change
 * time (a write changes the ctime even when it keeps size and mtime; an
 * editor's save-by-rename changes the inode).
 */
import { walkWorktree, type Walk, type WalkEntry, type WalkOptions } from './inventory';

/** Why `now` differs from what `seen` recorded (its first such path), or null when nothing changed. */
export function firstChangedEntry(now: Walk, seen: readonly WalkEntry[], skip: (relPath: string) => boolean = () => false, opts: { ctime: boolean } = { ctime: true }): string | null {
  if (now.unreadable.length > 0) return now.unreadable[0];
  const known = new Map(seen.map((e) => [e.path, e]));
  for (const e of now.entries) {
    if (e.type === 'socket' || skip(e.path)) continue;
    const was = known.get(e.path);
    if (!was || was.type !== e.type) return e.path;
    // A folder's own times change with its entries, which are compared themselves.
    if (e.type === 'dir') continue;
    if (was.size !== e.size || was.mtimeMs !== e.mtimeMs) return e.path;
    if (was.ino !== undefined && was.ino !== e.ino) return e.path;
    if (opts.ctime && was.ctimeMs !== undefined && was.ctimeMs !== e.ctimeMs) return e.path;
  }
  return null;
}

/** What a capture saw, for the check right before removal. */
export interface CaptureStamp {
  /** Every entry of the worktree's walk (whatever became of it: captured, archived, dropped). */
  entries: WalkEntry[];
  /** The worktree's private git dir (HEAD, its reflog, its own refs) and what was in it. */
  gitDir: string;
  gitDirEntries: WalkEntry[];
}

/**
 * The private git dir's entries that may change without any work changing: the index (any
 * `git status` refreshes it) and, with a split index, its shared part (`sharedindex.<sha>`, written
 * anew with it: the removal's own last status did, and the cleanup never finished), lock files, and
 * the files that only say where the worktree is.
 */
export function isGitDirNoise(relPath: string): boolean {
  return relPath === 'index' || isSubmoduleIndex(relPath) || isSharedIndex(relPath) || relPath === 'gitdir' || relPath === 'locked' || relPath.endsWith('.lock');
}

/** A split index's shared part, the worktree's own or a submodule's (`modules/…/sharedindex.<sha>`). */
function isSharedIndex(relPath: string): boolean {
  const slash = relPath.lastIndexOf('/');
  const name = relPath.slice(slash + 1);
  return name.startsWith('sharedindex.') && (slash === -1 || relPath.startsWith('modules/'));
}

/**
 * A submodule's index, in its git dir under `modules/` (nested ones under `modules/a/modules/b/`):
 * refreshed by any `git status` that recurses into submodules, the capture's own included. What it
 * stages is files of the submodule's checkout, which are compared themselves.
 */
function isSubmoduleIndex(relPath: string): boolean {
  return relPath.startsWith('modules/') && relPath.endsWith('/index');
}

/** The first change since `stamp` in the worktree (`now`, walked again) or in its git dir (a commit, a checkout), or null. */
export async function firstChangeSinceCapture(now: Walk, stamp: CaptureStamp, skip: (relPath: string) => boolean, walkOptions: WalkOptions = {}): Promise<string | null> {
  const inTree = firstChangedEntry(now, stamp.entries, skip);
  if (inTree !== null) return inTree;
  const inGitDir = firstChangedEntry(await walkWorktree(stamp.gitDir, walkOptions), stamp.gitDirEntries, isGitDirNoise);
  return inGitDir === null ? null : `.git/${inGitDir}`;
}
