/** Where a branch is checked out, and whether a working tree has changes a landing must not touch. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { MOVED_SUBMODULES, runGit } from './runGit';
import { flaggedEdits } from './flaggedFiles';
import { listWorktrees, type WorktreeEntry } from './worktree';
import { isCommitId } from './commitId';
import { branchTipInFiles, readHeadName, worktreeGitDir } from './headFiles';
import { readGitFileText } from './gitFileText';

/**
 * The worktree in which `branch` is checked out (git allows one unless forced: the first), or null. As git counts
 * it: HEAD names it, or a rebase or bisect stopped there is about it. HEAD is detached meanwhile,
 * so `worktree list` shows no branch; moving the branch under a rebase would make the person's
 * `rebase --continue` fail at its very end, and git's own `branch -f` refuses it too.
 * `worktrees`: the list read already (a caller that started `listWorktrees` early), else read now.
 */
export async function worktreeOfBranch(repo: string, branch: string, worktrees?: Promise<WorktreeEntry[]>): Promise<string | null> {
  return (await worktreesOfBranch(repo, branch, worktrees))[0] ?? null;
}

/**
 * Every worktree that holds `branch` as git counts it (`worktreeOfBranch`): those whose HEAD names
 * it, then those where a rebase or bisect stopped is about it or a `rebase --update-refs` stopped is to move it. More than one only when git was told
 * to allow it (`git worktree add --force`, `checkout --ignore-other-worktrees`).
 */
export async function worktreesOfBranch(repo: string, branch: string, worktrees?: Promise<WorktreeEntry[]>): Promise<string[]> {
  const all = await (worktrees ?? listWorktrees(repo));
  const detached = all.filter((w) => w.branch === null);
  const busyWith = await Promise.all(detached.map((w) => branchesOfStoppedOperation(w.path)));
  return [...all.filter((w) => w.branch === branch), ...detached.filter((_, i) => busyWith[i].includes(branch))].map((w) => w.path);
}

/** Whether a registered worktree's folder is there: git still counts a branch checked out in one whose folder is gone. */
export async function worktreeFolderExists(worktree: string): Promise<boolean> {
  return fs.stat(worktree).then((st) => st.isDirectory(), () => false);
}

/**
 * The branches (short names) that a rebase or a bisect stopped in `worktree` holds, as git counts
 * them (branch.c prepare_checked_out_branches): the one it is about, from its git dir's state files
 * (`rebase-merge/head-name`, `rebase-apply/head-name`, `BISECT_START`), and those a `rebase
 * --update-refs` is to move (`rebase-merge/update-refs`: each ref, then its two commits, a line
 * each); none when nothing is stopped there (or a bisect began on a detached HEAD), or its folder is gone.
 */
async function branchesOfStoppedOperation(worktree: string): Promise<string[]> {
  const files = await gitDirFiles(worktree, ['rebase-merge/head-name', 'rebase-apply/head-name', 'BISECT_START', 'rebase-merge/update-refs']).catch(() => null);
  if (files === null) return [];
  const [merging, applying, bisecting, updating] = await Promise.all(files.map((file) => readGitFileText(file).then((t) => t.trim(), () => null)));
  const updated = (updating ?? '').split('\n').filter((_, i) => i % 3 === 0);
  const refs = [merging, applying, ...updated].filter((ref): ref is string => ref?.startsWith('refs/heads/') === true).map((ref) => ref.slice('refs/heads/'.length));
  // A bisect begun on a detached HEAD holds a commit id: no branch.
  return bisecting && !isCommitId(bisecting) ? [...refs, bisecting] : refs;
}

/**
 * Where files of `worktree`'s own git dir are: joined to the dir its `.git` names when that is
 * plain (no process), else where git says (`rev-parse --git-path`: a symlinked `.git`, a layout
 * only git knows). Throws when git cannot say (the folder is gone).
 */
async function gitDirFiles(worktree: string, names: readonly string[]): Promise<string[]> {
  const gitDir = await worktreeGitDir(worktree).catch(() => undefined);
  if (gitDir !== undefined) return names.map((name) => path.join(gitDir, name));
  const res = await runGit(['rev-parse', ...names.flatMap((name) => ['--git-path', name])], { cwd: worktree });
  return res.stdout.split('\n').filter(Boolean).map((p) => path.resolve(worktree, p));
}

/** The commit checked out in `worktree` (its HEAD). */
export async function headCommit(worktree: string): Promise<string> {
  return (await runGit(['rev-parse', 'HEAD'], { cwd: worktree })).stdout.trim();
}

/** The branch checked out in `worktree` (short name), or null when HEAD is detached. Read from HEAD's file when it is plain (no process). */
export async function currentBranch(worktree: string): Promise<string | null> {
  const named = await readHeadName(worktree).catch(() => undefined);
  if (named !== undefined) return named.ref === null ? null : named.ref.slice('refs/heads/'.length);
  const res = await runGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: worktree, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : null;
}

export interface LocalChanges {
  /** Paths with staged or unstaged changes to tracked files (conflicted ones included). */
  tracked: string[];
  /** Untracked, not ignored paths. */
  untracked: string[];
  /** The conflicted ones among `tracked` (unmerged in the index: what `git ls-files --unmerged` lists). */
  unmerged: string[];
}

/** `git status`'s codes for an unmerged path (git-status, "Short Format"). */
const UNMERGED_CODES = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);

/**
 * What `git status` reports in `worktree`, and the edits it does not report (files flagged
 * assume-unchanged or skip-worktree); read-only (no index refresh written). `untracked`: every
 * untracked file (`all`, needed to compare paths), folders as one entry (`normal`, enough to tell
 * whether there are any), or none (`no`, the cheapest on a large tree). A submodule moved to
 * another commit counts whatever `submodule.<name>.ignore` says: `git add -A` commits it, and a
 * target's or workspace's moved submodule is the person's work; what is inside a submodule does not
 * count (`MOVED_SUBMODULES`): no commit or stash of the superproject clears it.
 */
export async function localChanges(worktree: string, untrackedFiles: 'all' | 'normal' | 'no' = 'all'): Promise<LocalChanges> {
  const [res, hidden] = await Promise.all([
    runGit(['status', '--porcelain=v1', '-z', `--untracked-files=${untrackedFiles}`, '--no-renames', MOVED_SUBMODULES], { cwd: worktree, env: { GIT_OPTIONAL_LOCKS: '0' }, names: true }),
    flaggedEdits(worktree),
  ]);
  const tracked: string[] = [];
  const untracked: string[] = [];
  const unmerged: string[] = [];
  for (const field of res.stdout.split('\0')) {
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    const file = field.slice(3);
    if (code === '??') untracked.push(file);
    else if (code !== '!!') tracked.push(file);
    if (UNMERGED_CODES.has(code)) unmerged.push(file);
  }
  for (const e of hidden) if (!tracked.includes(e.path)) tracked.push(e.path);
  return { tracked, untracked, unmerged };
}

/**
 * The files (in a worktree's own git dir) that say a merge, rebase, am, cherry-pick, revert or
 * bisect stopped half-way, and what each means; the first present names it. `git am` keeps its
 * state in `rebase-apply/` too (with `applying` in it); `sequencer/` stays through a series of
 * cherry-picks or reverts, also between the stops that leave no *_HEAD.
 */
const IN_PROGRESS: readonly (readonly [string, string])[] = [
  ['MERGE_HEAD', 'a merge'],
  ['rebase-merge', 'a rebase'],
  ['rebase-apply/applying', 'an am (git am)'],
  ['rebase-apply', 'a rebase'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['sequencer', 'a cherry-pick or revert'],
  ['BISECT_START', 'a bisect'],
];

/**
 * A merge, rebase, am, cherry-pick, revert or bisect stopped half-way in `worktree` (its own git dir).
 */
export async function operationInProgress(worktree: string): Promise<string | null> {
  const paths = await gitDirFiles(worktree, IN_PROGRESS.map(([name]) => name));
  const present = await Promise.all(paths.map((p) => fs.stat(p).then(() => true, () => false)));
  const first = present.indexOf(true);
  return first < 0 ? null : (IN_PROGRESS[first]?.[1] ?? 'a git operation');
}

/** The commit a local branch points at, or null when there is no such branch. */
export async function branchTip(repo: string, branch: string): Promise<string | null> {
  const fromFiles = await branchTipInFiles(repo, branch);
  if (fromFiles !== undefined) return fromFiles;
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`], { cwd: repo, allowFailure: true });
  if (res.code !== 0) return null;
  const sha = res.stdout.trim();
  if (!isCommitId(sha)) throw failure(`Branch ${branch} does not name a commit in ${repo}.`);
  return sha;
}

/**
 * The commits several local branches point at, from git's files when they can say, else in one git process; each null when there is no such
 * branch. Whenever that one process does not answer them all, each is asked on its own (`branchTip`),
 * so the answers and the errors are exactly `branchTip`'s.
 */
export async function branchTips(repo: string, branches: readonly string[]): Promise<(string | null)[]> {
  const fromFiles = await Promise.all(branches.map((b) => branchTipInFiles(repo, b)));
  if (fromFiles.every((tip) => tip !== undefined)) return fromFiles as (string | null)[];
  // `refs/heads/` keeps every argument from reading as an option; the trailing `--` makes each one a revision.
  const res = await runGit(['rev-parse', ...branches.map((b) => `refs/heads/${b}^{commit}`), '--'], { cwd: repo, allowFailure: true });
  const shas = res.stdout.split('\n').filter((l) => isCommitId(l.trim()));
  if (res.code === 0 && shas.length === branches.length) return shas.map((l) => l.trim());
  return Promise.all(branches.map((b) => branchTip(repo, b)));
}
