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
import { isWithin, realPathOr } from '../common/paths';
import { printable } from '../common/printable';
import { fsPath } from './pathBytes';
import { NO_HOOKS_ENV, runGit } from './runGit';
import { readGitFileText } from './gitFileText';

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
    if (st?.isDirectory()) problems.push(`${printable(p)}: its git dir came back as its own .git folder, not in the worktree's git dir where it was (${await howToAbsorb(path.join(target, p, '.git'))}).`);
    // git moves a nested git dir with its parent's and rewrites the pointer only for a submodule its
    // parent's .gitmodules names as git would (not one renamed to a name git refuses).
    const named = st?.isFile() ? /^gitdir: (.+)$/m.exec(await readGitFileText(fsPath(path.join(target, p, '.git'))))?.[1] : undefined;
    if (named && !(await fs.lstat(fsPath(path.resolve(target, p, named, 'HEAD'))).catch(() => null))) {
      problems.push(`${printable(p)}: its .git names ${printable(named)}, which is not there; its git dir is in its parent's (modules/), under the name its parent's .gitmodules gave it before (git submodule absorbgitdirs there finds it once that name is back).`);
    }
  }
  return problems;
}

/**
 * A name git itself would use for a git dir under `modules/`: git's own `check_submodule_name`
 * refuses an empty one and one with a `..` component ("suspicious submodule name"), `/` or `\` the
 * separator on every platform. The `.gitmodules` is the agent's to write.
 */
function isSafeSubmoduleName(name: string): boolean {
  return name !== '' && !name.split(/[/\\]/).includes('..');
}

/**
 * The submodule's name in `parent`'s `.gitmodules` for its path `rel` there: git keeps its git dir
 * under `modules/<name>`, which is its path only when it was added without `--name`. Its path when
 * no entry names it, or the name is one git would refuse (and ignore).
 */
async function submoduleName(parentDir: string, rel: string): Promise<string> {
  const res = await runGit(['config', '--file', path.join(parentDir, '.gitmodules'), '-z', '--get-regexp', '^submodule\\..*\\.path$'], { cwd: parentDir, env: NO_HOOKS_ENV, allowFailure: true });
  for (const entry of res.code === 0 ? res.stdout.split('\0') : []) {
    const nl = entry.indexOf('\n');
    if (nl < 0 || entry.slice(nl + 1) !== rel) continue;
    const name = entry.slice('submodule.'.length, nl - '.path'.length);
    if (isSafeSubmoduleName(name)) return name;
  }
  return rel;
}

/**
 * Points the nested checkout `p` at the copy of its git dir inside `parent`'s `.git` folder, when there
 * is one: only one that stays, symbolic links resolved, under that folder's `modules/` (a name or a
 * link leading out would have this delete the checkout's git dir and write into another repository).
 */
async function pointIntoParent(target: string, parent: string, p: string): Promise<void> {
  const checkout = path.join(target, p);
  const modules = path.join(target, parent, '.git', 'modules');
  const inParent = path.join(modules, await submoduleName(path.join(target, parent), p.slice(parent.length + 1)));
  const realModules = await realPathOr(modules, null);
  const realInParent = await realPathOr(inParent, null);
  const realTarget = await realPathOr(target, target);
  if (realModules === null || realInParent === null || realInParent === realModules) return;
  if (!isWithin(realInParent, realModules) || !isWithin(realModules, realTarget)) return;
  const own = await fs.lstat(fsPath(path.join(checkout, '.git'))).catch(() => null);
  const kept = await fs.lstat(fsPath(path.join(realInParent, 'HEAD'))).catch(() => null);
  if (!own?.isDirectory() || !kept?.isFile()) return;
  await fs.rm(fsPath(path.join(checkout, '.git')), { recursive: true, force: true });
  await fs.writeFile(fsPath(path.join(checkout, '.git')), `gitdir: ${path.relative(checkout, inParent)}\n`);
  await runGit(['config', '--file', path.join(inParent, 'config'), 'core.worktree', path.relative(inParent, checkout)], { cwd: target, allowFailure: true });
}

/**
 * How the person moves a submodule's `.git` folder back: `git submodule absorbgitdirs`, unless it
 * registers linked worktrees, which git refuses to move (*relocate_gitdir … with more than one
 * worktree not supported*; bug 202): advising it then sent the person to a command that fails.
 */
async function howToAbsorb(dotGit: string): Promise<string> {
  const registered = await fs.readdir(fsPath(path.join(dotGit, 'worktrees'))).catch(() => []);
  if (registered.length === 0) return 'git submodule absorbgitdirs moves it there';
  return 'git works in it as it is; git submodule absorbgitdirs refuses to move it while it has linked worktrees';
}
