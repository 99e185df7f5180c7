/**
 * The git dirs a worktree's removal deletes with its private git dir, found for the archive: those of
 * nested checkouts (submodules) whose `.git` file points into it, and repositories that live there
 * with no checkout at all (a submodule's after `deinit` or `git rm`, one made by hand).
 */
import * as path from 'node:path';
import { failure } from '../common/errors';
import type { ArchiveEntry } from './archive';
import { unreadableFiles, walkWorktree, type Walk, type WalkEntry, type WalkOptions } from './inventory';
import { fsPath } from './pathBytes';
import { isWithin } from '../common/paths';
import { gitFileTarget } from './headFiles';
import { readGitFileTextSync } from './gitFileText';

/**
 * The worktree's private git dir, from its `.git` file (no git process, and no
 * newline-splitting of paths that may hold newlines); a `.git` folder is its own.
 */
export function privateGitDir(worktree: string): string {
  const dotGit = path.join(worktree, '.git');
  let text: string;
  try {
    text = readGitFileTextSync(fsPath(dotGit));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') return dotGit;
    throw failure(`Could not capture ${worktree}: it is not a git worktree (its .git is ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable'}).`);
  }
  const named = gitFileTarget(text);
  if (named === null) throw failure(`Could not capture ${worktree}: its .git file does not name a git dir.`);
  return path.resolve(worktree, named);
}

/** A walked entry as the archive must hold it. */
export function archiveEntry(e: WalkEntry): ArchiveEntry {
  return e.type === 'file' ? { path: e.path, fileSize: e.size } : { path: e.path };
}

export interface GitDirPart {
  /** The checkout's folder in the worktree (its `.git` pointed here); for a `private` one, its place in the worktree's git dir. */
  path: string;
  /** No checkout points at it: it lived only in the worktree's private git dir (privateGitDirs). */
  private?: boolean;
  gitdir: string;
  entries: ArchiveEntry[];
  bytes: number;
  unreadable: string[];
}

/** Git dirs of nested checkouts (submodules) that live in the worktree's private git dir and die with it. */
export async function doomedGitDirs(worktree: string, walk: Walk, ownGitDir: string, walkOptions: WalkOptions): Promise<GitDirPart[]> {
  const parts: GitDirPart[] = [];
  for (const nested of walk.nested) {
    if (!nested.gitFile) continue;
    let gitdir: string;
    try {
      gitdir = privateGitDir(path.join(worktree, nested.path));
    } catch {
      continue; // not a gitdir pointer: the file itself is archived like any other
    }
    if (!isWithin(gitdir, ownGitDir)) continue;
    const inner = await walkWorktree(gitdir, walkOptions);
    const files = inner.entries.filter((e) => e.type !== 'dir').map((e) => e.path);
    parts.push({
      path: nested.path,
      gitdir,
      entries: inner.entries.map(archiveEntry),
      bytes: inner.entries.reduce((n, e) => n + e.size, 0),
      unreadable: [...inner.unreadable, ...(await unreadableFiles(gitdir, files))].map((p) => `${nested.path}/.git/${p}`),
    });
  }
  return parts;
}

/** How a git dir is named to the person: by its checkout's `.git`, or by its place in the worktree's git dir. */
export function gitDirName(g: GitDirPart): string {
  return g.private ? `$GIT_DIR/${g.path}` : `${g.path}/.git`;
}

/** `rel` is `parent` or below it ('/'-separated paths of one walk). */
function within(parent: string, rel: string): boolean {
  return rel === parent || rel.startsWith(`${parent}/`);
}

/**
 * The outermost folders of the walk of a git dir that git would take for a repository: a HEAD file
 * beside an objects folder (or, a linked worktree's git dir, a commondir file). What is inside one
 * (its own submodules' git dirs, modules/a/modules/b) is archived with it.
 */
function repositoriesIn(entries: readonly WalkEntry[]): string[] {
  const types = new Map(entries.map((e) => [e.path, e.type]));
  const found: string[] = [];
  for (const e of entries) {
    if (e.type !== 'dir' || found.some((f) => within(f, e.path))) continue;
    if (types.get(`${e.path}/HEAD`) !== 'file') continue;
    if (types.get(`${e.path}/objects`) === 'dir' || types.get(`${e.path}/commondir`) === 'file') found.push(e.path);
  }
  return found;
}

/**
 * Repositories that live only in the worktree's private git dir: a submodule's git dir after
 * `git submodule deinit` or `git rm` took its checkout (git keeps it under modules/, with the
 * commits made in it), or one made there by hand. No folder of the worktree points at them and
 * `git status` says nothing of them, yet the removal deletes them with the private git dir. Those
 * inside a git dir already kept through its checkout (`checkouts`) are in that archive already.
 */
export async function privateGitDirs(ownGitDir: string, gitDirWalk: Walk, checkouts: readonly GitDirPart[]): Promise<GitDirPart[]> {
  const parts: GitDirPart[] = [];
  for (const rel of repositoriesIn(gitDirWalk.entries)) {
    const gitdir = path.join(ownGitDir, rel);
    if (checkouts.some((c) => isWithin(gitdir, c.gitdir))) continue;
    const inner = gitDirWalk.entries.filter((e) => e.path.startsWith(`${rel}/`)).map((e) => ({ ...e, path: e.path.slice(rel.length + 1) }));
    const files = inner.filter((e) => e.type !== 'dir').map((e) => e.path);
    parts.push({
      path: rel,
      private: true,
      gitdir,
      entries: inner.map(archiveEntry),
      bytes: inner.reduce((n, e) => n + e.size, 0),
      unreadable: [...gitDirWalk.unreadable.filter((p) => within(rel, p)), ...(await unreadableFiles(gitdir, files)).map((p) => `${rel}/${p}`)].map((p) => `$GIT_DIR/${p}`),
    });
  }
  return parts;
}
