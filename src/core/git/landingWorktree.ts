/**
 * Temporary worktrees for landings that need one (a rebase replays commits
 * through a working tree). They live in a Paddock-owned folder (the store's
 * `landing/`), detached (no branch is checked out in them, so no branch is
 * locked), and are named after the process that made them: one left by a
 * process that died (SIGKILL, crash) is removed by the next landing of any
 * process, with its registration (and no other) removed from its repository.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describeError, failure } from '../common/errors';
import { firstLine, runGit } from './runGit';
import { forgetWorktreeRegistration, registrationsOf, removeRegistration, resolvedPath } from './worktreeRegistration';
import { gitFileTarget } from './headFiles';
import { makeDirs } from '../common/makeDirs';

/** A landing worktree's name, and its registration's: the digits git adds when that is taken are hex too. */
const NAME = /^land-(\d+)-[0-9a-f]+$/;

/**
 * git's environment for everything done in a landing worktree: no hooks. The worktree is
 * Paddock's scratch, not a checkout of the person's: a post-checkout hook that installs
 * dependencies, or fails outside a prepared checkout (husky without node_modules, git-lfs's
 * hooks without its binary), would slow or refuse the landing. Merge and squash landings make
 * their commits with plumbing, which runs no hook either.
 */
export const LANDING_GIT_CONFIG: Readonly<Record<string, string>> = { 'core.hooksPath': '/dev/null' }; // runGit's `config` (git -c): GIT_CONFIG_COUNT needs git 2.31

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The repository's shared git dir, from the `.git` file of a linked worktree; null when unreadable. */
async function commonDirOfWorktree(worktree: string): Promise<string | null> {
  const text = await fs.readFile(path.join(worktree, '.git'), 'utf8').catch(() => null);
  const named = text ? gitFileTarget(text) : null;
  if (named === null) return null;
  // <common>/worktrees/<name>
  return path.dirname(path.dirname(path.resolve(worktree, named)));
}

/**
 * Removes the temporary worktrees of processes that are gone; returns the folders removed. With
 * `repo`, also forgets that repository's registrations of such worktrees whose folders are gone.
 */
export async function sweepLandingWorktrees(root: string, log?: (m: string) => void, repo?: string): Promise<string[]> {
  const names = await fs.readdir(root).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const folder = path.join(root, name);
    try {
      await removeLeftover(folder);
      removed.push(folder);
    } catch (err) {
      log?.(`could not remove the leftover landing worktree ${folder}: ${describeError(err)}`);
    }
  }
  if (repo !== undefined) await forgetStrandedRegistrations(repo, root).catch((err: unknown) => log?.(`could not forget leftover landing worktrees of ${repo}: ${describeError(err)}`));
  return removed;
}

/**
 * Its registration first, then its folder. The other way round, a process killed while removing the
 * folder (thousands of files take a while) left the registration with the folder gone, and no later
 * sweep could find it again (the folder's `.git` named the repository): `git worktree list` showed it
 * for good. Killed in between now, the folder stays, and its `.git` leads the next sweep back.
 */
async function removeLeftover(folder: string): Promise<void> {
  const common = await commonDirOfWorktree(folder);
  // Paddock's own scratch under a dead process's name: its registration may go before its folder.
  if (common) for (const dir of await registrationsOf(common, folder)) await removeRegistration(dir);
  await fs.rm(folder, { recursive: true, force: true });
}

/**
 * `repo`'s registrations of landing worktrees under `root` whose folder is gone and whose process is
 * too: left by a sweep killed mid-way before the order above, or by a git killed while adding one.
 */
async function forgetStrandedRegistrations(repo: string, root: string): Promise<void> {
  const res = await runGit(['rev-parse', '--git-common-dir'], { cwd: repo, allowFailure: true });
  if (res.code !== 0) return;
  const admin = path.join(path.resolve(repo, res.stdout.trim()), 'worktrees');
  const roots = new Set([path.resolve(root), resolvedPath(root)]);
  for (const name of await fs.readdir(admin).catch(() => [] as string[])) {
    const gitdir = await fs.readFile(path.join(admin, name, 'gitdir'), 'utf8').catch(() => '');
    if (gitdir.trim() === '') {
      await forgetEmptied(path.join(admin, name));
      continue;
    }
    const folder = path.dirname(path.resolve(admin, name, gitdir.trim()));
    const m = NAME.exec(path.basename(folder));
    if (!m || !roots.has(path.dirname(folder)) || alive(Number(m[1]))) continue;
    await forgetWorktreeRegistration(repo, folder);
  }
}

/**
 * A registration of a dead landing's worktree that a removal killed half-way (before the order
 * above, one recursive rm in any order; or between its last two steps) left without `gitdir` — so
 * it no longer says where its folder was — and without `HEAD`, so no worktree can run on it. One
 * that still has its `HEAD` is left: it may be a person's worktree named alike that still works.
 */
async function forgetEmptied(dir: string): Promise<void> {
  const m = NAME.exec(path.basename(dir));
  if (!m || alive(Number(m[1]))) return;
  if (await fs.lstat(path.join(dir, 'HEAD')).then(() => true, () => false)) return;
  await fs.rm(dir, { recursive: true, force: true });
}

/**
 * Runs `fn` in a fresh detached worktree of `repo` at `commit`, and removes it afterwards whatever
 * happens, also when making it failed half-way. `fn`'s git calls there take `LANDING_GIT_CONFIG`.
 */
export async function withLandingWorktree<T>(repo: string, root: string, commit: string, fn: (worktree: string) => Promise<T>): Promise<T> {
  await makeDirs(root, 0o700);
  await sweepLandingWorktrees(root, undefined, repo);
  const folder = path.join(root, `land-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const made = await runGit(['worktree', 'add', '--detach', '--quiet', folder, commit], { cwd: repo, config: LANDING_GIT_CONFIG, pastSiblingAdds: true, allowFailure: true });
    // Its checkout runs the repository's filters: a required one whose program is missing refuses it.
    if (made.code !== 0) throw failure(`Could not make the landing's temporary worktree of ${repo} (${firstLine(made.stderr) || `exit code ${made.code}`}); nothing was changed.`);
    return await fn(folder);
  } finally {
    await runGit(['worktree', 'remove', '--force', '--force', folder], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
    await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
    // Its own registration only: a prune would also drop the person's worktrees whose folders are away.
    await forgetWorktreeRegistration(repo, folder).catch(() => false);
  }
}
