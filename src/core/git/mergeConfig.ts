/**
 * git's merge settings as `git merge` reads them with the target branch checked out (bug 75). One
 * `git config` process reads them in the repository before the target is known; most people's
 * config reads the same wherever it is asked. Where it does not — an `includeIf` (an `onbranch:`
 * condition is judged against HEAD's branch, a `gitdir:` one against the worktree's git dir) or
 * `extensions.worktreeConfig` (each worktree's own `config.worktree`) — it is read again as git
 * merge would: in the worktree the target is checked out in, or, when it is checked out nowhere,
 * with a git dir of Paddock's own (in the landing's scratch folder, named and swept as its
 * temporary worktrees are) whose HEAD names the target and which shares the repository's (its
 * `commondir`), so an `onbranch:` include is judged for the target. That git dir is a new folder:
 * a `gitdir:` condition is judged against it, and the main worktree's `config.worktree` is not
 * read there — a merge into a branch checked out nowhere has no worktree of its own.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { worktreeOfBranch } from './checkout';
import { configEntries, type ConfigEntry } from './configEntries';
import { firstLine, runGit } from './runGit';
import type { WorktreeEntry } from './worktree';

/** The config entries `mergeSettingsFrom` reads, in the order git reads them, in one process that needs no target yet (none: nothing is set). */
export async function readMergeConfig(repo: string): Promise<ConfigEntry[]> {
  return readMergeConfigWith({ cwd: repo }, repo);
}

/**
 * `readMergeConfig` run where `where` says: in a worktree (`cwd`), or with a git directory of its
 * own (`env`'s GIT_DIR). Besides the settings, the keys that make git's answer depend on the
 * worktree it is asked in (`includeIf.*`, `extensions.worktreeConfig`), which `mergeConfigForTarget` looks at.
 */
export async function readMergeConfigWith(where: { cwd: string; env?: NodeJS.ProcessEnv }, repo: string): Promise<ConfigEntry[]> {
  const res = await runGit(
    ['config', '-z', '--get-regexp', '^(merge\\.(ff|verifysignatures|log|summary)|pull\\.twohead|gpg\\.mintrustlevel|commit\\.cleanup|core\\.commentchar|branch\\..*\\.mergeoptions|includeif\\..*|extensions\\.worktreeconfig)$'],
    { ...where, allowFailure: true },
  );
  // 1: none is set.
  if (res.code === 1) return [];
  if (res.code !== 0) throw failure(`Could not read git's merge settings in ${repo}: ${firstLine(res.stderr) || `exit code ${res.code}`}; nothing was changed.`);
  return configEntries(res.stdout);
}

/** Whether `entries` (read in the repository) may read otherwise in another worktree or on another branch. */
function readsByWorktree(entries: readonly ConfigEntry[]): boolean {
  return entries.some((e) => e.key.startsWith('includeif.') || e.key === 'extensions.worktreeconfig');
}

/**
 * `entries`, read in `repo` by `readMergeConfig`, as git merge would read them with `target`
 * checked out: the same entries when nothing in them depends on where they are read.
 * `worktrees`: `listWorktrees(repo)` when the caller began it.
 */
export async function mergeConfigForTarget(repo: string, target: string, entries: ConfigEntry[], worktrees?: Promise<WorktreeEntry[]>, scratchRoot = os.tmpdir()): Promise<ConfigEntry[]> {
  if (!readsByWorktree(entries)) return entries;
  const worktree = await worktreeOfBranch(repo, target, worktrees);
  // Checked out where it was read (most often: the base in the main worktree): git merge reads the same there.
  if (worktree !== null && path.resolve(worktree) === path.resolve(repo)) return entries;
  // A registered worktree whose folder is gone cannot be asked: the landing refuses it later (`assertTargetLandable`), in its own sentence.
  if (worktree !== null && (await fs.stat(worktree).then((st) => st.isDirectory(), () => false))) return readMergeConfigWith({ cwd: worktree }, repo);
  const common = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo, allowFailure: true });
  if (common.code !== 0) throw failure(`Could not read git's merge settings in ${repo}: ${firstLine(common.stderr) || `exit code ${common.code}`}; nothing was changed.`);
  await fs.mkdir(scratchRoot, { recursive: true, mode: 0o700 });
  // Named as the landing's temporary worktrees are: one a SIGKILL leaves is swept with them once its process is gone.
  const gitDir = path.join(scratchRoot, `land-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(gitDir, { mode: 0o700 });
  try {
    // What git needs of a git dir (is_git_directory): a HEAD, and objects and refs, found through `commondir`.
    await fs.writeFile(path.join(gitDir, 'HEAD'), `ref: refs/heads/${target}\n`);
    await fs.writeFile(path.join(gitDir, 'commondir'), `${common.stdout.trim()}\n`);
    return await readMergeConfigWith({ cwd: gitDir, env: { GIT_DIR: gitDir } }, repo);
  } finally {
    await fs.rm(gitDir, { recursive: true, force: true });
  }
}
