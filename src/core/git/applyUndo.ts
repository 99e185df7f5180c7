/**
 * Puts a working tree back as it was when a git command that writes files
 * stopped half-way: `git apply`, and the fast-forward or merge of a landing
 * or an update. git checks the whole change before writing, but a write can
 * still fail (a name too long, a full disk, a folder made read-only
 * meanwhile, a required smudge filter whose program is missing) after other
 * files were written, and git does not roll back. What must be restored is
 * known before it starts: the caller has checked that every path the change
 * touches is, on disk and in the index, exactly as HEAD has it (or absent),
 * so HEAD's entries (through the index, which a failed `git apply`, merge or
 * checkout leaves unwritten, and which is put back first when it was
 * written) and the absence of the others are the state to return to.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { encodeName, fsPath } from './pathBytes';
import { ALL_SUBMODULES, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { ABSENT_MODE, treeChanges, type PathChange } from './treeChanges';

export interface ApplyUndo {
  /** Restores every path the patch touches; throws when git or the file system refuses. */
  undo(): Promise<void>;
}

/** The folders that hold `file`, innermost first ('a/b/c' → 'a/b', 'a'). */
function foldersOf(file: string): string[] {
  const parts = file.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, parts.length - 1 - i).join('/'));
}

/**
 * Read before `git apply` runs: which touched paths HEAD holds, and which folders of new files are not there yet.
 * `changes`: `treeChanges(worktree, head, tree)` when the caller reads it for another check too.
 */
export async function prepareApplyUndo(worktree: string, head: string, tree: string, changes?: Promise<PathChange[]>): Promise<ApplyUndo> {
  return undoOf(worktree, head, await (changes ?? treeChanges(worktree, head, tree)));
}

/** The same for a command that writes each of several trees in turn (a rebase: the base, then each replayed commit). */
export async function prepareUndoAcross(worktree: string, head: string, trees: readonly string[]): Promise<ApplyUndo> {
  const changes = await Promise.all(trees.map((tree) => treeChanges(worktree, head, tree)));
  const byPath = new Map<string, PathChange>();
  for (const c of changes.flat()) byPath.set(c.path, c);
  return undoOf(worktree, head, [...byPath.values()]);
}

/**
 * Whether git refused before writing any file: in unpack-trees' checks of the working tree (the
 * person's file appeared or was edited since the caller looked), or on the index's lock (another
 * git process, an editor's `git status`, holds it). Putting back after such a refusal would
 * overwrite or delete the person's file, or rewrite files nobody changed, so the caller leaves it alone.
 */
export function refusedBeforeWriting(stderr: string): boolean {
  return /would be (overwritten|removed|lost)|would lose untracked files|Not possible to fast-forward|Unable to create '[^']*index\.lock'/.test(stderr);
}

async function undoOf(worktree: string, head: string, changes: readonly PathChange[]): Promise<ApplyUndo> {
  const inHead: string[] = [];
  const added: string[] = [];
  for (const c of changes) (c.oldMode === ABSENT_MODE ? added : inHead).push(c.path);
  const folders = [...new Set(added.flatMap(foldersOf))];
  const stat = (rel: string) => fs.lstat(fsPath(path.join(worktree, rel))).catch(() => undefined);
  const [present, addedStats] = await Promise.all([Promise.all(folders.map(stat)), Promise.all(added.map(stat))]);
  // Innermost first, so that each is empty when its turn comes.
  const madeByPatch = folders.filter((_, i) => !present[i]).sort((a, b) => b.split('/').length - a.split('/').length);
  // A folder already at an added path (git sees an empty one as nothing; callers refuse any other thing
  // there) is the person's: the undo leaves it, or makes it again where git wrote a file over it.
  const folderModes = new Map<string, number>();
  added.forEach((rel, i) => {
    const st = addedStats[i];
    if (st?.isDirectory()) folderModes.set(rel, st.mode & 0o7777);
  });
  return {
    async undo() {
      // A command that wrote the index before failing (a fast-forward whose ref update a
      // reference-transaction hook refused) left the touched entries at the new commit, and the
      // files below are put back from the index: its entries for those paths go back to HEAD's first.
      const indexMoved = await runGit(['diff-index', '--cached', '--quiet', ALL_SUBMODULES, head, '--'], { cwd: worktree, allowFailure: true });
      if (indexMoved.code !== 0) {
        const touched = [...added, ...inHead];
        await runGit(['reset', '-q', '--pathspec-from-file=-', '--pathspec-file-nul', head], { cwd: worktree, input: encodeName(touched.join('\0') + '\0'), env: { GIT_LITERAL_PATHSPECS: '1' }, timeoutMs: GIT_BULK_TIMEOUT_MS });
      }
      for (const c of changes) {
        if (c.oldMode !== ABSENT_MODE) continue;
        const mode = folderModes.get(c.path);
        if (mode === undefined) await removeAdded(path.join(worktree, c.path), c.newMode === GITLINK_MODE);
        else await keepFolder(path.join(worktree, c.path), mode);
      }
      // A folder that holds anything else now is not the patch's alone: it stays.
      for (const folder of madeByPatch) await fs.rmdir(fsPath(path.join(worktree, folder))).catch((err: NodeJS.ErrnoException) => err.code === 'ENOTEMPTY' || ignoreMissing(err));
      if (inHead.length === 0) return;
      // `-f`: over whatever the patch left at a path (a file where a folder was, a changed file).
      // It writes the person's files through their smudge filters: one slow but working is let run to the bound (stallMs 0).
      await runGit(['checkout-index', '-f', '-q', '-z', '--stdin'], { cwd: worktree, input: encodeName(inHead.join('\0') + '\0'), timeoutMs: GIT_BULK_TIMEOUT_MS, stallMs: 0 });
    },
  };
}

/** git's mode of a submodule's entry. */
const GITLINK_MODE = '160000';

/**
 * A path the change added. A new submodule is written as an empty folder (git apply and checkout make
 * one; its files come from `git submodule update`), removed as such: one that holds anything is not the change's alone, and stays.
 */
async function removeAdded(file: string, gitlink: boolean): Promise<void> {
  if (!gitlink) return fs.unlink(fsPath(file)).catch(ignoreMissing);
  await fs.rmdir(fsPath(file)).catch((err: NodeJS.ErrnoException) => err.code === 'ENOTEMPTY' || ignoreMissing(err));
}

/** A folder that was at a path the change added: left as it is, or made again (with its permission bits) where a file or symlink now stands. */
async function keepFolder(folder: string, mode: number): Promise<void> {
  const now = await fs.lstat(fsPath(folder)).catch(() => undefined);
  if (now?.isDirectory()) return;
  if (now) await fs.unlink(fsPath(folder));
  await fs.mkdir(fsPath(folder));
  await fs.chmod(fsPath(folder), mode);
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR' && err.code !== 'ENAMETOOLONG') throw err;
}
