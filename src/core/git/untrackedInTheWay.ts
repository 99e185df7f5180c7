/**
 * The files on disk that moving a working tree from one commit to others would
 * overwrite or delete although `from` does not track them: untracked files,
 * ignored files (which git itself overwrites without a word on a merge, a
 * fast-forward or a rebase), a person's files inside a folder that becomes a
 * file, a file or symlink where a folder must be made. `git apply` and
 * `git merge` compare exact paths only, and `git apply` can fail half-way when
 * a folder is in the way; a landing asks this first and refuses with the list.
 *
 * Read only: `git diff-tree` (one process, two for several trees), then lstat of the
 * written paths and their folders (on the thread pool), and a walk of a
 * folder only where a file replaces it.
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { failure, type PaddockError } from '../common/errors';
import { isCommitId } from './commitId';
import { walkWorktree } from './inventory';
import { fewPaths } from './landingConflict';
import { fsPath } from './pathBytes';
import { ALL_SUBMODULES, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { ABSENT_MODE, GITLINK_MODE, parseTreeChanges, type PathChange } from './treeChanges';
/** How many lstat calls are in flight at once. */
const LSTAT_BATCH = 256;

interface TreeChanges {
  /** Paths some tree holds as a file, symlink or gitlink where `from` holds something else. */
  written: Set<string>;
  /** Of the paths the diffs name, those `from` holds as a file, symlink or gitlink (checked out, so git's to replace). */
  trackedInFrom: Set<string>;
}

/** Every tree's difference from `from`: one process for one tree, else one to name the trees and one for every pair (`diff-tree --stdin` compares trees only). */
async function changesFrom(worktree: string, from: string, trees: readonly string[]): Promise<PathChange[]> {
  const diffArgs = ['diff-tree', '-r', '-z', '--no-renames', ALL_SUBMODULES];
  if (trees.length === 1) return parseTreeChanges((await runGit([...diffArgs, from, trees[0], '--'], { cwd: worktree, timeoutMs: GIT_BULK_TIMEOUT_MS, names: true })).stdout);
  const named = (await runGit(['rev-parse', ...[from, ...trees].map((t) => `${t}^{tree}`)], { cwd: worktree })).stdout.split('\n').filter(isCommitId);
  const input = named.slice(1).map((tree) => `${named[0]} ${tree}\n`).join('');
  return parseTreeChanges((await runGit([...diffArgs, '--stdin'], { cwd: worktree, input, timeoutMs: GIT_BULK_TIMEOUT_MS, names: true })).stdout);
}

function sortChanges(changes: readonly PathChange[]): TreeChanges {
  const written = new Set<string>();
  const trackedInFrom = new Set<string>();
  for (const c of changes) {
    if (c.oldMode !== ABSENT_MODE) trackedInFrom.add(c.path);
    // git never writes into a submodule's folder when it moves the superproject.
    if (c.newMode !== ABSENT_MODE && c.newMode !== GITLINK_MODE) written.add(c.path);
  }
  return { written, trackedInFrom };
}

/** The folders that hold `file`, outermost first ('a/b/c' → 'a', 'a/b'). */
function foldersOf(file: string): string[] {
  const parts = file.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

async function lstatAll(root: string, rels: readonly string[]): Promise<(Stats | undefined)[]> {
  const out: (Stats | undefined)[] = [];
  for (let at = 0; at < rels.length; at += LSTAT_BATCH) {
    out.push(...(await Promise.all(rels.slice(at, at + LSTAT_BATCH).map((rel) => fs.lstat(fsPath(path.join(root, rel))).catch(() => undefined)))));
  }
  return out;
}

/** What a folder on disk holds that `from` does not track: its files, nested git dirs and unreadable folders. */
async function untrackedInside(worktree: string, folder: string, trackedInFrom: ReadonlySet<string>): Promise<string[]> {
  const abs = path.join(worktree, folder);
  const walk = await walkWorktree(abs);
  const found = walk.entries.filter((e) => e.type !== 'dir').map((e) => `${folder}/${e.path}`);
  // The walk leaves out a `.git` right below its root: there, it is a repository of the person's own.
  const ownGit = await fs.lstat(fsPath(path.join(abs, '.git'))).then(() => [`${folder}/.git`], () => []);
  const unreadable = walk.unreadable.map((rel) => (rel === '.' ? folder : `${folder}/${rel}`));
  return [...found.filter((file) => !trackedInFrom.has(file)), ...ownGit, ...unreadable];
}

/**
 * The paths (relative, sorted) that moving `worktree`'s files from commit `from` (its HEAD) through
 * each of `trees` would overwrite or delete though `from` does not track them. Empty: the move loses
 * nothing that is not committed in `from` (tracked changes are the caller's to check).
 * `changes`: `treeChanges(…, from, trees[0])` when the caller reads it for another check too (one tree only).
 */
export async function untrackedInTheWay(worktree: string, from: string, trees: readonly string[], changes?: Promise<PathChange[]>): Promise<string[]> {
  if (trees.length === 0) return [];
  if (changes !== undefined && trees.length !== 1) throw new Error('untrackedInTheWay: shared changes are for one tree');
  const { written, trackedInFrom } = sortChanges(await (changes ?? changesFrom(worktree, from, trees)));
  if (written.size === 0) return [];
  const files = [...written];
  const folders = [...new Set(files.flatMap(foldersOf))].filter((folder) => !written.has(folder));
  const [fileStats, folderStats] = await Promise.all([lstatAll(worktree, files), lstatAll(worktree, folders)]);
  const blocked = new Set<string>();
  // A folder git must make (or keep) where a file or symlink it does not track stands.
  folders.forEach((folder, i) => {
    const st = folderStats[i];
    if (st && !st.isDirectory() && !trackedInFrom.has(folder)) blocked.add(folder);
  });
  const replacedFolders: string[] = [];
  files.forEach((file, i) => {
    const st = fileStats[i];
    if (!st) return;
    if (st.isDirectory()) replacedFolders.push(file);
    else if (!trackedInFrom.has(file)) blocked.add(file);
  });
  // A folder a file replaces: git deletes what `from` tracks in it; anything else would be lost (or stop git half-way).
  for (const folder of replacedFolders) for (const file of await untrackedInside(worktree, folder, trackedInFrom)) blocked.add(file);
  return [...blocked].sort();
}

export const UNTRACKED_IN_THE_WAY_CODE = 'UNTRACKED_IN_THE_WAY';

/** The one sentence: `doing` ("Applying", "Moving main") would overwrite or delete `files` in `worktree`. */
export function untrackedInTheWayError(doing: string, worktree: string, files: readonly string[], advice = 'move them aside and try again'): PaddockError {
  return failure(
    `${doing} would overwrite or delete files in ${worktree} that are not committed (untracked or ignored): ${fewPaths(files)}; ${advice} — nothing was changed.`,
    UNTRACKED_IN_THE_WAY_CODE,
  );
}
