/**
 * A worktree's HEAD read from the files git keeps (`.git` folder, or `.git` →
 * gitdir; HEAD; the branch's loose or packed ref), with no process: for the
 * standing figures of many agents, and for a landing's last check that the
 * target is still where it was. Any other layout (a reftable, a symlinked ref,
 * a ref git would have to peel) gives `undefined`: ask git then.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isCommitId } from './commitId';
import { fsPath } from './pathBytes';
import { isPlainValidRef } from './refName';
import { runGit } from './runGit';
import { readGitFileText, PACKED_REFS_CAP } from './gitFileText';

const absent = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

export interface HeadFromFiles {
  head: string;
  /** The worktree's own git directory (where its index and HEAD live). */
  gitDir: string;
  /** The branch HEAD names (`refs/heads/…`), or null when HEAD is detached. */
  ref: string | null;
}

/**
 * The git dir a `.git` file names, as git reads it (read_gitfile): `gitdir: ` then the path to the
 * end, less its line end; null when it names none. A path may hold a newline, which a line-wise
 * match would cut. The one reading of a `.git` file.
 */
export function gitFileTarget(text: string): string | null {
  if (!text.startsWith('gitdir: ')) return null;
  const named = text.slice('gitdir: '.length).replace(/[\r\n]+$/, '');
  return named === '' ? null : named;
}

/** The worktree's own git directory, from its `.git` (a folder, or a file naming one); undefined for any other layout. */
export async function worktreeGitDir(worktree: string): Promise<string | undefined> {
  const dotGit = path.join(worktree, '.git');
  // Followed: a `.git` symlinked to a git dir elsewhere is that git dir.
  if ((await fs.stat(dotGit)).isDirectory()) return dotGit;
  const named = gitFileTarget(await readGitFileText(dotGit));
  return named === null ? undefined : path.resolve(worktree, named);
}

/** The repository's shared git dir, named by a worktree's `commondir` file (a main worktree's git dir is it). */
export async function commonDirOf(gitDir: string): Promise<string> {
  const text = await readGitFileText(path.join(gitDir, 'commondir')).catch(() => null);
  return text === null ? gitDir : path.resolve(gitDir, text.replace(/\r?\n$/, ''));
}

/**
 * Whose linked-worktree git dir the worktree's `.git` (a file naming one, a symlink to one, or a
 * folder) is, by that git dir's `gitdir` file: this folder's, another folder's that is there, or
 * neither (no `gitdir`, as a repository's own git dir; a folder that is gone; nothing readable).
 */
export async function gitDirOwner(worktree: string): Promise<'this' | 'another' | 'unknown'> {
  try {
    const gitDir = await worktreeGitDir(worktree);
    if (gitDir === undefined) return 'unknown';
    const back = (await readGitFileText(path.join(gitDir, 'gitdir'))).replace(/\r?\n$/, '');
    const [named, actual] = await Promise.all([fs.realpath(path.dirname(path.resolve(gitDir, back))), fs.realpath(worktree)]);
    return named === actual ? 'this' : 'another';
  } catch {
    return 'unknown';
  }
}

/** The repository's shared git dir: from its `.git` with no process when it is a plain checkout; null when git cannot tell either. */
export async function sharedGitDir(repo: string): Promise<string | null> {
  const gitDir = await worktreeGitDir(repo).catch(() => undefined);
  if (gitDir !== undefined) return commonDirOf(gitDir);
  const res = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : null;
}

/** What HEAD names: a branch (`refs/heads/…`, which may not exist yet), or the commit a detached HEAD is at. */
export type HeadName = { gitDir: string; ref: string } | { gitDir: string; ref: null; detachedAt: string };

/**
 * What HEAD names, from its file (and, for a branch that is a symbolic ref, the branch it ends at,
 * as git counts it: `branchRefEnd`). A symlinked HEAD, a reftable's placeholder
 * (`refs/heads/.invalid`) or anything else unusual gives undefined: ask git then.
 */
export async function readHeadName(worktree: string): Promise<HeadName | undefined> {
  const gitDir = await worktreeGitDir(worktree);
  if (gitDir === undefined) return undefined;
  const headFile = path.join(gitDir, 'HEAD');
  if ((await fs.lstat(headFile)).isSymbolicLink()) return undefined;
  const headText = (await readGitFileText(headFile)).trim();
  if (isCommitId(headText)) return { gitDir, ref: null, detachedAt: headText };
  const named = /^ref: (refs\/heads\/[^\s]+)$/.exec(headText)?.[1];
  // A component starting with a dot is no branch name git allows: a placeholder.
  if (!named || named.split('/').some((part) => part.startsWith('.'))) return undefined;
  const ref = await branchRefEnd(await commonDirOf(gitDir), named);
  return ref === undefined ? undefined : { gitDir, ref };
}

/** The most hops git follows from one symbolic ref to the next (refs.h SYMREF_MAXDEPTH). */
const SYMREF_MAX_HOPS = 5;

/**
 * The branch `ref` (`refs/heads/…`) ends at as git follows it. A loose ref file may itself hold
 * `ref: <other>` (`git symbolic-ref refs/heads/alias refs/heads/main`), and git counts the branch
 * it ends at as the one a HEAD naming it has checked out (`git worktree list` lists main;
 * `git branch -f main` refuses it): reading `alias` there would let a landing move main past a
 * worktree's uncommitted changes, and leave that worktree behind it. Packed refs hold no symbolic
 * ref. Undefined when the files cannot say (a reftable, a symlinked ref, a hop out of
 * `refs/heads/`, more hops than git follows): ask git then.
 */
export async function branchRefEnd(commonDir: string, ref: string): Promise<string | undefined> {
  if (await fs.lstat(fsPath(path.join(commonDir, 'reftable'))).then(() => true, (err) => (absent(err) ? false : Promise.reject(err)))) return undefined;
  let at = ref;
  for (let hop = 0; hop <= SYMREF_MAX_HOPS; hop++) {
    if (!at.startsWith('refs/heads/') || !isPlainValidRef(at)) return undefined;
    const file = path.join(commonDir, ...at.split('/'));
    const st = await fs.lstat(fsPath(file)).catch((err) => (absent(err) ? null : Promise.reject(err)));
    // No loose file (packed, or not there yet), or a folder of branches under that name: this is where it ends.
    if (st === null || st.isDirectory()) return at;
    if (!st.isFile()) return undefined;
    const text = (await readGitFileText(fsPath(file))).trim();
    if (isCommitId(text)) return at;
    const next = /^ref: (\S+)$/.exec(text)?.[1];
    if (next === undefined) return undefined;
    at = next;
  }
  return undefined;
}

export async function readHeadFromFiles(worktree: string): Promise<HeadFromFiles | undefined> {
  const name = await readHeadName(worktree);
  if (name === undefined) return undefined;
  if (name.ref === null) return { head: name.detachedAt, gitDir: name.gitDir, ref: null };
  const commit = await refFromFiles(await commonDirOf(name.gitDir), name.ref).catch(() => undefined);
  return typeof commit === 'string' ? { head: commit, gitDir: name.gitDir, ref: name.ref } : undefined;
}

/**
 * Whether the local branch exists, from git's files, with no process; undefined when the files
 * cannot say: ask git then.
 */
export async function branchExistsInFiles(worktree: string, branch: string): Promise<boolean | undefined> {
  const tip = await branchTipInFiles(worktree, branch);
  return tip === undefined ? undefined : tip !== null;
}

/**
 * The commit a local branch points at, from git's files (git keeps only commits in `refs/heads/`),
 * with no process; null when there is no such branch; undefined when the files cannot say (an
 * unusual name or layout): ask git then.
 */
export async function branchTipInFiles(worktree: string, branch: string): Promise<string | null | undefined> {
  if (!isPlainValidRef(`refs/heads/${branch}`) || branch === 'HEAD') return undefined;
  try {
    const gitDir = await worktreeGitDir(worktree);
    if (gitDir === undefined) return undefined;
    return await refFromFiles(await commonDirOf(gitDir), `refs/heads/${branch}`);
  } catch {
    return undefined;
  }
}

/**
 * The commit a ref names, from its loose file, else packed-refs; null when neither has it.
 * Undefined when the files cannot say: a reftable, a loose ref that is not a plain commit id (a
 * symbolic ref, a folder of refs where its file would be).
 */
async function refFromFiles(commonDir: string, ref: string): Promise<string | null | undefined> {
  if (await fs.lstat(fsPath(path.join(commonDir, 'reftable'))).then(() => true, (err) => (absent(err) ? false : Promise.reject(err)))) return undefined;
  const loose = await readGitFileText(fsPath(path.join(commonDir, ref))).then((t) => t.trim(), (err) => (absent(err) ? null : Promise.reject(err)));
  if (loose !== null) return isCommitId(loose) ? loose : undefined;
  const packed = await readGitFileText(path.join(commonDir, 'packed-refs'), PACKED_REFS_CAP).catch((err) => (absent(err) ? '' : Promise.reject(err)));
  for (const line of packed.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && isCommitId(sha)) return sha;
  }
  return null;
}

/** The branch HEAD names when it has no commit yet (an orphan branch), else null. */
export async function unbornBranchOf(worktree: string): Promise<string | null> {
  const [symbolic, resolved] = await Promise.all([
    runGit(['symbolic-ref', '-q', 'HEAD'], { cwd: worktree, allowFailure: true }),
    runGit(['rev-parse', '-q', '--verify', 'HEAD'], { cwd: worktree, allowFailure: true }),
  ]);
  const ref = symbolic.stdout.trim();
  return symbolic.code === 0 && ref.startsWith('refs/heads/') && resolved.code !== 0 ? ref.slice('refs/heads/'.length) : null;
}

/**
 * The ref HEAD names (`refs/heads/…`), null when it is detached; undefined when git cannot say.
 * Read from HEAD's file; git is asked only for a layout that reader does not know.
 */
export async function headRefOf(worktree: string): Promise<string | null | undefined> {
  const name = await readHeadName(worktree).catch(() => undefined);
  if (name !== undefined) return name.ref;
  const symbolic = await runGit(['symbolic-ref', '-q', 'HEAD'], { cwd: worktree, allowFailure: true });
  if (symbolic.code === 0) return symbolic.stdout.trim();
  return symbolic.code === 1 ? null : undefined;
}
