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
import { forgetWorktreeRegistration } from './worktreeRegistration';
import { gitFileTarget } from './headFiles';
import { makeDirs } from '../common/makeDirs';

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

/** Removes the temporary worktrees of processes that are gone; returns the folders removed. */
export async function sweepLandingWorktrees(root: string, log?: (m: string) => void): Promise<string[]> {
  const names = await fs.readdir(root).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const folder = path.join(root, name);
    const common = await commonDirOfWorktree(folder);
    try {
      await fs.rm(folder, { recursive: true, force: true });
      if (common) await forgetWorktreeRegistration(common, folder);
      removed.push(folder);
    } catch (err) {
      log?.(`could not remove the leftover landing worktree ${folder}: ${describeError(err)}`);
    }
  }
  return removed;
}

/**
 * Runs `fn` in a fresh detached worktree of `repo` at `commit`, and removes it afterwards whatever
 * happens, also when making it failed half-way. `fn`'s git calls there take `LANDING_GIT_CONFIG`.
 */
export async function withLandingWorktree<T>(repo: string, root: string, commit: string, fn: (worktree: string) => Promise<T>): Promise<T> {
  await makeDirs(root, 0o700);
  await sweepLandingWorktrees(root);
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
