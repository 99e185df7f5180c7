/**
 * A submodule checked out in the agent's worktree keeps its git dir inside the worktree's private
 * git dir (`modules/<name>`), its `.git` a file naming it. Restore extracts that git dir as the
 * checkout's own `.git` folder (restore.ts); this puts it back where git had it, by git's own
 * `submodule absorbgitdirs` (its `.git` file and `core.worktree` written relative to the restored
 * worktree, wherever it is). Left as folders, the tree was not as it was, and a submodule's own
 * submodule had two git dirs (its folder, and the copy in its parent's): `git submodule deinit` of
 * the parent then failed, git unable to move one over the other.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { printable } from '../common/printable';
import { fsPath } from './pathBytes';
import { NO_HOOKS_ENV, runGit } from './runGit';

/** Absorbs the git dirs of these checkouts (paths in the worktree); says which stayed a `.git` folder. */
export async function reabsorbGitDirs(target: string, checkouts: readonly string[]): Promise<string[]> {
  // Outer first, each from the checkout it lies in: a submodule's own submodule goes into the git dir
  // of its parent (modules/a/modules/b), where git had it; the superproject's run would refuse a path
  // inside a submodule.
  const byDepth = [...checkouts].sort((a, b) => a.split('/').length - b.split('/').length);
  const parentOf = (p: string) => byDepth.filter((q) => p.startsWith(`${q}/`)).sort((a, b) => b.length - a.length)[0];
  // A submodule's own submodule had its git dir inside its parent's (modules/b there), which the
  // parent's archive brought back: the checkout points at that one again (git moves both with the
  // parent, and rewrites the pointer), and the second copy extracted as its `.git` folder goes.
  for (const p of byDepth) {
    const parent = parentOf(p);
    if (parent !== undefined) await pointIntoParent(target, parent, p);
  }
  for (const p of byDepth) {
    const parent = parentOf(p);
    const cwd = parent === undefined ? target : path.join(target, parent);
    const rel = parent === undefined ? p : p.slice(parent.length + 1);
    await runGit(['submodule', 'absorbgitdirs', '--', `:(literal)${rel}`], { cwd, env: NO_HOOKS_ENV, allowFailure: true });
  }
  const problems: string[] = [];
  for (const p of checkouts) {
    const st = await fs.lstat(fsPath(path.join(target, p, '.git'))).catch(() => null);
    if (st?.isDirectory()) problems.push(`${printable(p)}: its git dir came back as its own .git folder, not in the worktree's git dir where it was (git submodule absorbgitdirs moves it there).`);
  }
  return problems;
}

/**
 * The submodule's name in `parent`'s `.gitmodules` for its path `rel` there: git keeps its git dir
 * under `modules/<name>`, which is its path only when it was added without `--name`. The file on
 * disk, as git's own `absorbgitdirs` reads it; its path when no entry names it.
 */
async function submoduleName(parentDir: string, rel: string): Promise<string> {
  const res = await runGit(['config', '--file', path.join(parentDir, '.gitmodules'), '-z', '--get-regexp', '^submodule\\..*\\.path$'], { cwd: parentDir, env: NO_HOOKS_ENV, allowFailure: true });
  for (const entry of res.code === 0 ? res.stdout.split('\0') : []) {
    const nl = entry.indexOf('\n');
    if (nl < 0 || entry.slice(nl + 1) !== rel) continue;
    return entry.slice('submodule.'.length, nl - '.path'.length);
  }
  return rel;
}

/** Points the nested checkout `p` at the copy of its git dir inside `parent`'s `.git` folder, when there is one. */
async function pointIntoParent(target: string, parent: string, p: string): Promise<void> {
  const checkout = path.join(target, p);
  const inParent = path.join(target, parent, '.git', 'modules', await submoduleName(path.join(target, parent), p.slice(parent.length + 1)));
  const own = await fs.lstat(fsPath(path.join(checkout, '.git'))).catch(() => null);
  const kept = await fs.lstat(fsPath(path.join(inParent, 'HEAD'))).catch(() => null);
  if (!own?.isDirectory() || !kept?.isFile()) return;
  await fs.rm(fsPath(path.join(checkout, '.git')), { recursive: true, force: true });
  await fs.writeFile(fsPath(path.join(checkout, '.git')), `gitdir: ${path.relative(checkout, inParent)}\n`);
  await runGit(['config', '--file', path.join(inParent, 'config'), 'core.worktree', path.relative(inParent, checkout)], { cwd: target, allowFailure: true });
}
