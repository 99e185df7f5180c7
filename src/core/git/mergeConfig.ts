/**
 * git's merge settings as `git merge` reads them with the target branch checked out (bug 75). One
 * `git config` process reads them in the repository before the target is known; most people's
 * config reads the same wherever it is asked. Where it does not — an `includeIf` (an `onbranch:`
 * condition is judged against HEAD's branch, a `gitdir:` one against the worktree's git dir) or
 * `extensions.worktreeConfig` (each worktree's own `config.worktree`) — it is read again as git
 * merge would: in the worktree the target is checked out in. A target checked out nowhere would
 * have to be checked out to be merged into with git, most naturally in the main worktree (what
 * Paddock assumed before): its settings are read as there — its `gitdir:` and `config.worktree` —
 * with `onbranch:` judged for the target. The main worktree itself cannot be asked with another
 * HEAD, so `onbranch:` is judged in a git dir of Paddock's own (in the landing's scratch folder,
 * named and swept as its temporary worktrees are) whose HEAD names the target, which shares the
 * repository's (its `commondir`) and holds a copy of the main worktree's `config.worktree`; there a
 * `gitdir:` condition is judged against that folder. With both kinds of condition, one more read,
 * that git dir with the main worktree's HEAD, tells which of the two bears on the settings; when
 * both do, the landing is refused: Paddock cannot tell what git merge would read.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { fsFailureWords } from '../common/fsErrors';
import { worktreeFolderExists, worktreesOfBranch } from './checkout';
import { configEntries, type ConfigEntry } from './configEntries';
import { firstLine, runGit } from './runGit';
import { sharedGitDir } from './headFiles';
import { listWorktrees, type WorktreeEntry } from './worktree';
import { makeDirs } from '../common/makeDirs';

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

/** Whether `entries` hold an `includeIf` whose condition is of `kind` (`gitdir:` covers `gitdir/i:`). */
function hasCondition(entries: readonly ConfigEntry[], kind: 'onbranch:' | 'gitdir'): boolean {
  return entries.some((e) => e.key.startsWith(`includeif.${kind}`));
}

const sameEntries = (a: readonly ConfigEntry[], b: readonly ConfigEntry[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * `entries`, read in `repo` by `readMergeConfig`, as git merge would read them with `target`
 * checked out: the same entries when nothing in them depends on where they are read.
 * `worktrees`: `listWorktrees(repo)` when the caller began it.
 */
export async function mergeConfigForTarget(repo: string, target: string, entries: ConfigEntry[], worktrees?: Promise<WorktreeEntry[]>, scratchRoot = os.tmpdir()): Promise<ConfigEntry[]> {
  if (!readsByWorktree(entries)) return entries;
  const all = await (worktrees ?? listWorktrees(repo));
  const worktree = (await worktreesOfBranch(repo, target, Promise.resolve(all)))[0] ?? null;
  // Checked out where it was read (most often: the base in the main worktree): git merge reads the same there.
  if (worktree !== null && path.resolve(worktree) === path.resolve(repo)) return entries;
  if (worktree !== null) {
    // A registered worktree whose folder is gone cannot be asked: the landing refuses it later (`assertTargetLandable`), in its own sentence.
    return (await worktreeFolderExists(worktree)) ? readMergeConfigWith({ cwd: worktree }, repo) : entries;
  }
  // Checked out nowhere: as in the main worktree (git lists it first), where git merge would be run once it was checked out there.
  const main = all[0]?.path;
  const inMain = main === undefined || path.resolve(main) === path.resolve(repo) || !(await worktreeFolderExists(main)) ? entries : await readMergeConfigWith({ cwd: main }, repo);
  if (!hasCondition(inMain, 'onbranch:')) return inMain;
  const common = await sharedGitDir(repo);
  if (common === null) throw failure(`Could not read git's merge settings in ${repo}: git cannot tell its git directory; nothing was changed.`);
  const forTarget = await readInGitDirOfOwn(repo, common, `ref: refs/heads/${target}\n`, scratchRoot);
  if (!hasCondition(inMain, 'gitdir')) return forTarget;
  // Both: the main worktree's own HEAD read as the target's was shows what the git dir's place changes (gitdir:), and the target's HEAD what its branch does (onbranch:).
  const mainHead = await fs.readFile(path.join(common, 'HEAD'), 'utf8').catch((e: unknown) => {
    throw failure(`Could not read git's merge settings in ${repo}: its HEAD could not be read (${fsFailureWords(e)}); nothing was changed.`);
  });
  const forMainHead = await readInGitDirOfOwn(repo, common, mainHead, scratchRoot);
  if (sameEntries(forMainHead, inMain)) return forTarget;
  if (sameEntries(forMainHead, forTarget)) return inMain;
  throw failure(
    `git's includeIf "gitdir:…" and "onbranch:…" settings both change git merge's settings for ${target}, which is checked out nowhere, and Paddock cannot read them as git merge would with it checked out; check ${target} out and land again — nothing was changed.`,
    'GIT_SETTING',
  );
}

/**
 * `readMergeConfig` in a git dir of Paddock's own whose HEAD is `head`, sharing `common` and
 * holding a copy of the main worktree's `config.worktree` (read only under extensions.worktreeConfig,
 * as git reads it), removed after.
 */
async function readInGitDirOfOwn(repo: string, common: string, head: string, scratchRoot: string): Promise<ConfigEntry[]> {
  // Named as the landing's temporary worktrees are: one a SIGKILL leaves is swept with them once its process is gone.
  const gitDir = path.join(scratchRoot, `land-${process.pid}-${randomBytes(4).toString('hex')}`);
  const made = async (): Promise<void> => {
    await makeDirs(scratchRoot, 0o700);
    await fs.mkdir(gitDir, { mode: 0o700 });
    // What git needs of a git dir (is_git_directory): a HEAD, and objects and refs, found through `commondir`.
    await fs.writeFile(path.join(gitDir, 'HEAD'), head);
    await fs.writeFile(path.join(gitDir, 'commondir'), `${common}\n`);
    // The main worktree's git dir is the shared one: its config.worktree lies there.
    await fs.copyFile(path.join(common, 'config.worktree'), path.join(gitDir, 'config.worktree')).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  };
  try {
    await made().catch((e: unknown) => {
      throw failure(`Could not read git's merge settings for the target in ${scratchRoot}: ${fsFailureWords(e)}; nothing was changed.`);
    });
    return await readMergeConfigWith({ cwd: gitDir, env: { GIT_DIR: gitDir } }, repo);
  } finally {
    await fs.rm(gitDir, { recursive: true, force: true });
  }
}
