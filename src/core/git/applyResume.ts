/**
 * Whether an apply's changes are already in the working tree: an apply killed after `git apply`
 * wrote the files (a killed CLI's git runs on to its end in its own process group) but before the
 * submodules' commits were staged or the landing was recorded. Its files then show as local
 * changes at the very paths it touches, and a second apply would refuse them as the person's; the
 * work would be in the workspace, half-staged and recorded nowhere. Here the second apply sees
 * that every path is as the agent's tree has it, stages what is left and records the landing.
 * (The caller has run every refusal of a fresh apply first: a nested repository, a file of the
 * person's in the way.)
 *
 * The files are compared as `git add` would record them (clean filters, line endings, modes,
 * symlinks), in a temporary index, so neither the person's index nor their files are touched. An
 * apply writes files only, never the index, but stages the submodules' commits with `.gitmodules`
 * (applyGitlinks.ts): the index at any other path must be HEAD's (a version the person staged is
 * theirs), and at those, HEAD's (not yet staged) or the agent's (staged), never a third. A
 * submodule's checkout is never an apply's to move: one at another commit than HEAD's is the
 * person's change, as a fresh apply says it is.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitlinkRelated } from './applyGitlinks';
import { ALL_SUBMODULES, GIT_BULK_TIMEOUT_MS, MOVED_SUBMODULES, runGit } from './runGit';
import { encodeName, fsPath } from './pathBytes';
import { ABSENT_MODE, GITLINK_MODE, parseTreeChanges, treeChanges, type PathChange } from './treeChanges';

const isGitlink = (c: PathChange) => c.oldMode === GITLINK_MODE || c.newMode === GITLINK_MODE;

/** True when every path `changes` (HEAD → the agent's tree) touches is already in `worktree` as the agent's tree has it. */
export async function appliedAlready(worktree: string, head: string, tree: string, changes: readonly PathChange[]): Promise<boolean> {
  const files = changes.filter((c) => !isGitlink(c));
  const links = changes.filter(isGitlink);
  const checks = [filesAsInTree(worktree, head, tree, files), indexAsAnApplyLeavesIt(worktree, head, changes), submodulesAsAtHead(worktree, links)];
  return (await Promise.all(checks)).every(Boolean);
}

/** `use` given the environment of a temporary index (removed after): the person's is never touched. */
async function withTempIndex<T>(use: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paddock-apply-'));
  try {
    return await use({ GIT_INDEX_FILE: path.join(dir, 'index'), GIT_LITERAL_PATHSPECS: '1' });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function filesAsInTree(worktree: string, head: string, tree: string, files: readonly PathChange[]): Promise<boolean> {
  if (files.length === 0) return true;
  // A file the agent adds or keeps that is not on disk: not applied (and `git add` would refuse its pathspec).
  const onDisk = await Promise.all(files.map((c) => fs.lstat(fsPath(path.join(worktree, c.path))).then(() => true, () => false)));
  if (files.some((c, i) => c.newMode !== ABSENT_MODE && !onDisk[i])) return false;
  return withTempIndex(async (env) => {
    await runGit(['read-tree', head], { cwd: worktree, env, timeoutMs: GIT_BULK_TIMEOUT_MS });
    // `-f`: an ignored file the agent adds is written by git apply as any other.
    const paths = encodeName(files.map((c) => `${c.path}\0`).join(''));
    const added = await runGit(['add', '-A', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd: worktree, env, input: paths, allowFailure: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
    if (added.code !== 0) return false;
    const onDiskTree = (await runGit(['write-tree'], { cwd: worktree, env })).stdout.trim();
    const differ = new Set((await treeChanges(worktree, onDiskTree, tree)).map((c) => c.path));
    return files.every((c) => !differ.has(c.path));
  });
}

/** The person's index at every path `changes` touches is HEAD's, or at a submodule's and what is staged with it, the agent's. */
async function indexAsAnApplyLeavesIt(worktree: string, head: string, changes: readonly PathChange[]): Promise<boolean> {
  // What the person's index stages against HEAD (their staged changes: few), read keeping every byte of a name.
  const res = await runGit(['diff-index', '--cached', '-z', '--no-renames', ALL_SUBMODULES, head, '--'], { cwd: worktree, names: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
  const staged = new Map(parseTreeChanges(res.stdout).map((c) => [c.path, c]));
  const stagedByApply = new Set(gitlinkRelated(changes).map((c) => c.path));
  return changes.every((c) => {
    const s = staged.get(c.path);
    return s === undefined || (stagedByApply.has(c.path) && s.newMode === c.newMode && s.newId === c.newId);
  });
}

/** No submodule the agent's tree moves is checked out at another commit than HEAD's: git apply moves none. */
async function submodulesAsAtHead(worktree: string, links: readonly PathChange[]): Promise<boolean> {
  const moved = links.filter((c) => c.oldMode === GITLINK_MODE && c.newMode === GITLINK_MODE);
  if (moved.length === 0) return true;
  // Compared with HEAD's entries in an index of their own (the person's may hold the agent's commit,
  // staged by the stopped apply); MOVED_SUBMODULES: what is inside a submodule counts here as in a fresh apply's check.
  return withTempIndex(async (env) => {
    const input = encodeName(moved.map((c) => `${GITLINK_MODE} ${c.oldId}\t${c.path}\0`).join(''));
    await runGit(['update-index', '-z', '--index-info'], { cwd: worktree, env, input });
    const res = await runGit(['diff-files', '--name-only', '-z', MOVED_SUBMODULES], { cwd: worktree, env, names: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
    return res.stdout.split('\0').every((p) => p === '');
  });
}
