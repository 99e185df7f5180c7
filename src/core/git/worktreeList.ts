/** git's list of a repository's worktrees, with the main one named by its folder even when git names its git dir. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { branchRefEnd, readHeadName, worktreeGitDir } from './headFiles';
import { mainWorktreeFromFiles } from './mainWorktreeFiles';
import { isCommitId } from './commitId';
import { runGit } from './runGit';
import { realPathOr } from '../common/paths';
import { readGitFileText } from './gitFileText';

export interface WorktreeEntry {
  path: string;
  locked: boolean;
  /** The branch checked out there (short name), null when detached or bare. */
  branch: string | null;
}

export interface WorktreeList {
  /** The main worktree first, as git lists it. */
  entries: WorktreeEntry[];
  /** The repository is bare: its first entry is a git dir, not a working tree. */
  bare: boolean;
}

/** Parses `git worktree list --porcelain -z`. */
export function parseWorktreeList(stdout: string): WorktreeList {
  const entries: WorktreeEntry[] = [];
  let bare = false;
  for (const field of stdout.split('\0')) {
    if (field.startsWith('worktree ')) entries.push({ path: field.slice('worktree '.length), locked: false, branch: null });
    else if (field.startsWith('branch refs/heads/') && entries.length > 0) entries[entries.length - 1].branch = field.slice('branch refs/heads/'.length);
    else if ((field === 'locked' || field.startsWith('locked ')) && entries.length > 0) entries[entries.length - 1].locked = true;
    else if (field === 'bare' && entries.length === 1) bare = true;
  }
  return { entries, bare };
}

/** Linked and main worktrees registered in `repo` (as `git worktree list --porcelain -z` lists them). */
export async function listWorktrees(repo: string): Promise<WorktreeEntry[]> {
  const fromFiles = await listWorktreesFromFiles(repo).catch(() => undefined);
  if (fromFiles !== undefined) return fromFiles;
  const res = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repo, pastSiblingAdds: true });
  const { entries, bare } = parseWorktreeList(res.stdout);
  const main = entries[0];
  if (main && !bare) main.path = (await mainWorkTree(repo, main.path)) ?? main.path;
  return entries;
}

/**
 * The list git would give, read from its files with no process (a landing and a cleanup ask for
 * it): `repo` is a plain main worktree (mainWorktreeFromFiles), and each registration under its
 * `worktrees/` has an absolute `gitdir` ending in `/.git` and a plain HEAD. A HEAD naming a branch
 * that is a symbolic ref has the branch it ends at checked out, as git lists it. The main one first,
 * the rest by path, as git lists them. Undefined for anything else: ask git then.
 */
export async function listWorktreesFromFiles(repo: string): Promise<WorktreeEntry[] | undefined> {
  const main = await mainWorktreeFromFiles(repo);
  if (main === undefined) return undefined;
  const commonDir = path.join(main, '.git');
  const names = await fs.readdir(path.join(commonDir, 'worktrees')).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
  const linked = await Promise.all(names.map((name) => linkedEntryFromFiles(commonDir, path.join(commonDir, 'worktrees', name))));
  const mainHead = await readHeadName(main);
  if (mainHead === undefined || linked.some((entry) => entry === undefined)) return undefined;
  const rest = (linked as WorktreeEntry[]).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [{ path: main, locked: false, branch: branchOf(mainHead.ref) }, ...rest];
}

async function linkedEntryFromFiles(commonDir: string, adminDir: string): Promise<WorktreeEntry | undefined> {
  const [gitdir, head, locked] = await Promise.all([
    readGitFileText(path.join(adminDir, 'gitdir')),
    fs.lstat(path.join(adminDir, 'HEAD')).then((st) => (st.isFile() ? readGitFileText(path.join(adminDir, 'HEAD')) : null)),
    fs.lstat(path.join(adminDir, 'locked')).then(() => true, () => false),
  ]);
  const dotGit = gitdir.replace(/\r?\n$/, '');
  if (!path.isAbsolute(dotGit) || !dotGit.endsWith('/.git') || head === null) return undefined;
  const text = head.trim();
  const named = /^ref: (refs\/heads\/[^\s]+)$/.exec(text)?.[1];
  if (named === undefined && !isCommitId(text)) return undefined;
  const ref = named === undefined ? null : await branchRefEnd(commonDir, named);
  if (ref === undefined) return undefined;
  return { path: dotGit.slice(0, -'/.git'.length), locked, branch: branchOf(ref) };
}

function branchOf(ref: string | null): string | null {
  return ref === null ? null : ref.slice('refs/heads/'.length);
}

/**
 * The main worktree's folder, given the path git listed for it and a folder of the repository.
 * git names it by its git dir (less a trailing `/.git`), so when the git dir lives apart from the
 * checkout (`git init --separate-git-dir`, or a `.git` symlinked by a dotfiles manager or Android's
 * `repo`), git names the git dir: no working tree. The checkout is then the one whose `.git` leads
 * to it, found from `dir` (git's top level of `dir`). Null when it cannot be found from there
 * (`dir` is in a linked worktree, say). A listed folder that is gone is returned as it is.
 */
export async function mainWorkTree(dir: string, listed: string): Promise<string | null> {
  const exists = (p: string) => fs.lstat(p).then(() => true, () => false);
  if ((await exists(path.join(listed, '.git'))) || !(await exists(listed))) return listed;
  const top = await runGit(['rev-parse', '--show-toplevel'], { cwd: dir, allowFailure: true });
  const candidate = top.stdout.trim();
  if (top.code !== 0 || !candidate) return null;
  const [leadsTo, gitDir] = await Promise.all([gitDirOfCheckout(candidate), realPathOr(listed, null)]);
  return leadsTo !== null && leadsTo === gitDir ? candidate : null;
}

/** The real path of the git dir a checkout's `.git` leads to (a folder, a symlink to one, or a `gitdir:` file naming one). */
async function gitDirOfCheckout(checkout: string): Promise<string | null> {
  const gitDir = await worktreeGitDir(checkout).catch(() => undefined);
  return gitDir === undefined ? null : realPathOr(gitDir, null);
}
