/** Where a branch is checked out, and whether a working tree has changes a landing must not touch. */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { runGit } from './runGit';
import { listWorktrees } from './worktree';

/** The worktree in which `branch` is checked out (git allows at most one), or null. */
export async function worktreeOfBranch(repo: string, branch: string): Promise<string | null> {
  return (await listWorktrees(repo)).find((w) => w.branch === branch)?.path ?? null;
}

/** The commit checked out in `worktree` (its HEAD). */
export async function headCommit(worktree: string): Promise<string> {
  return (await runGit(['rev-parse', 'HEAD'], { cwd: worktree })).stdout.trim();
}

/** The branch checked out in `worktree` (short name), or null when HEAD is detached. */
export async function currentBranch(worktree: string): Promise<string | null> {
  const res = await runGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: worktree, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : null;
}

export interface LocalChanges {
  /** Paths with staged or unstaged changes to tracked files (conflicted ones included). */
  tracked: string[];
  /** Untracked, not ignored paths. */
  untracked: string[];
}

/**
 * What `git status` reports in `worktree`; read-only (no index refresh written). `untracked`:
 * every untracked file (`all`, needed to compare paths), folders as one entry (`normal`, enough to
 * tell whether there are any), or none (`no`, the cheapest on a large tree).
 */
export async function localChanges(worktree: string, untrackedFiles: 'all' | 'normal' | 'no' = 'all'): Promise<LocalChanges> {
  const res = await runGit(['status', '--porcelain=v1', '-z', `--untracked-files=${untrackedFiles}`, '--no-renames'], { cwd: worktree, env: { GIT_OPTIONAL_LOCKS: '0' } });
  const tracked: string[] = [];
  const untracked: string[] = [];
  for (const field of res.stdout.split('\0')) {
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    const file = field.slice(3);
    if (code === '??') untracked.push(file);
    else if (code !== '!!') tracked.push(file);
  }
  return { tracked, untracked };
}

/** A merge, rebase, cherry-pick or revert stopped half-way in `worktree` (its own git dir). */
export async function operationInProgress(worktree: string): Promise<string | null> {
  const res = await runGit(['rev-parse', '--git-path', 'MERGE_HEAD', '--git-path', 'rebase-merge', '--git-path', 'rebase-apply', '--git-path', 'CHERRY_PICK_HEAD', '--git-path', 'REVERT_HEAD'], {
    cwd: worktree,
  });
  const names = ['a merge', 'a rebase', 'a rebase', 'a cherry-pick', 'a revert'];
  const paths = res.stdout.split('\n').filter(Boolean);
  for (let i = 0; i < paths.length; i++) if (existsSync(path.resolve(worktree, paths[i]))) return names[i] ?? 'a git operation';
  return null;
}

/** The commit a local branch points at, or null when there is no such branch. */
export async function branchTip(repo: string, branch: string): Promise<string | null> {
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`], { cwd: repo, allowFailure: true });
  if (res.code !== 0) return null;
  const sha = res.stdout.trim();
  if (!/^[0-9a-f]{40,64}$/.test(sha)) throw failure(`Branch ${branch} does not name a commit in ${repo}.`);
  return sha;
}
