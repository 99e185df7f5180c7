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

export interface HeadFromFiles {
  head: string;
  /** The worktree's own git directory (where its index and HEAD live). */
  gitDir: string;
  /** The branch HEAD names (`refs/heads/…`), or null when HEAD is detached. */
  ref: string | null;
}

/** The worktree's own git directory, from its `.git` (a folder, or a file naming one); undefined for any other layout. */
export async function worktreeGitDir(worktree: string): Promise<string | undefined> {
  const dotGit = path.join(worktree, '.git');
  if ((await fs.lstat(dotGit)).isDirectory()) return dotGit;
  const link = /^gitdir: (.+)$/m.exec(await fs.readFile(dotGit, 'utf8'));
  return link ? path.resolve(worktree, link[1].trim()) : undefined;
}

export interface HeadName {
  gitDir: string;
  /** The branch HEAD names (`refs/heads/…`, which may not exist yet), or null when HEAD is detached. */
  ref: string | null;
  /** The commit a detached HEAD points at. */
  detachedAt?: string;
}

/**
 * What HEAD names, from its file alone. A symlinked HEAD, a reftable's placeholder
 * (`refs/heads/.invalid`) or anything else unusual gives undefined: ask git then.
 */
export async function readHeadName(worktree: string): Promise<HeadName | undefined> {
  const gitDir = await worktreeGitDir(worktree);
  if (gitDir === undefined) return undefined;
  const headFile = path.join(gitDir, 'HEAD');
  if ((await fs.lstat(headFile)).isSymbolicLink()) return undefined;
  const headText = (await fs.readFile(headFile, 'utf8')).trim();
  if (isCommitId(headText)) return { gitDir, ref: null, detachedAt: headText };
  const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(headText)?.[1];
  // A component starting with a dot is no branch name git allows: a placeholder.
  if (!ref || ref.split('/').some((part) => part.startsWith('.'))) return undefined;
  return { gitDir, ref };
}

export async function readHeadFromFiles(worktree: string): Promise<HeadFromFiles | undefined> {
  const name = await readHeadName(worktree);
  if (name === undefined) return undefined;
  const { gitDir, ref } = name;
  if (ref === null) return { head: name.detachedAt!, gitDir, ref: null };
  const commonDir = path.resolve(gitDir, (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '.')).trim());
  const loose = await fs.readFile(path.join(commonDir, ref), 'utf8').then((t) => t.trim(), () => undefined);
  if (loose !== undefined) return isCommitId(loose) ? { head: loose, gitDir, ref } : undefined;
  const packed = await fs.readFile(path.join(commonDir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && isCommitId(sha)) return { head: sha, gitDir, ref };
  }
  return undefined;
}

/**
 * Whether the local branch exists, from git's files (its loose ref, else packed-refs), with no
 * process; undefined when the files cannot say (a reftable, an unusual layout): ask git then.
 */
export async function branchExistsInFiles(worktree: string, branch: string): Promise<boolean | undefined> {
  try {
    const gitDir = await worktreeGitDir(worktree);
    if (gitDir === undefined) return undefined;
    const commonDir = path.resolve(gitDir, (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '.')).trim());
    const gone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR';
    if (await fs.lstat(path.join(commonDir, 'reftable')).then(() => true, (err) => (gone(err) ? false : Promise.reject(err)))) return undefined;
    const ref = `refs/heads/${branch}`;
    const loose = await fs.lstat(path.join(commonDir, ref)).then((st) => st, (err) => (gone(err) ? null : Promise.reject(err)));
    if (loose !== null) return loose.isFile() ? true : undefined;
    const packed = await fs.readFile(path.join(commonDir, 'packed-refs'), 'utf8').catch((err) => (gone(err) ? '' : Promise.reject(err)));
    return packed.split('\n').some((line) => line.endsWith(` ${ref}`) && isCommitId(line.slice(0, line.indexOf(' '))));
  } catch {
    return undefined;
  }
}
