/** Finding the repository a folder belongs to and resolving refs in it. */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { failure, usageError } from '../common/errors';
import { firstLine, runGit } from './runGit';
import { isCommitId } from './commitId';
import { isPlainValidRef } from './refName';
import { readHeadFromFiles } from './headFiles';
import { mainWorktreeFromFiles } from './mainWorktreeFiles';
import { mainWorkTree, parseWorktreeList } from './worktreeList';
import { undecodableFolderSentence } from './undecodablePath';

export { isPlainValidRef, mainWorktreeFromFiles };

/**
 * The top-level folder of the main working tree of the repository containing
 * `dir`, also when `dir` is inside a linked worktree or a subfolder.
 */
export async function resolveRepoRoot(dir: string): Promise<string> {
  const abs = path.resolve(dir);
  let isDir: boolean | undefined;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    // reported below
  }
  if (isDir === undefined) {
    const misread = undecodableFolderSentence(abs);
    if (misread !== undefined) throw failure(misread);
    throw failure(`Folder ${abs} does not exist.`);
  }
  if (!isDir) throw failure(`${abs} is a file, not a folder.`);
  const fromFiles = await mainWorktreeFromFiles(abs);
  if (fromFiles !== undefined) return fromFiles;
  // Both at once (each is a git process); the list is read only when the folder is in a working tree.
  const [inside, list] = await Promise.all([
    runGit(['rev-parse', '--is-inside-work-tree'], { cwd: abs, allowFailure: true }),
    runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: abs, allowFailure: true, pastSiblingAdds: true }),
  ]);
  if (inside.code !== 0 || inside.stdout.trim() !== 'true') {
    const bare = await runGit(['rev-parse', '--is-bare-repository'], { cwd: abs, allowFailure: true });
    if (bare.code === 0 && bare.stdout.trim() === 'true') throw failure(`${abs} is a bare git repository without a working tree.`);
    throw failure(`${abs} is not inside a git repository.`);
  }
  if (list.code !== 0) throw failure(`git worktree failed in ${abs}: ${firstLine(list.stderr) || `exit code ${list.code}`}`, 'git');
  // The first entry of the worktree list is always the main working tree.
  const { entries, bare } = parseWorktreeList(list.stdout);
  const first = entries[0];
  if (!first || bare) throw failure(`The repository of ${abs} has no main working tree.`);
  const main = await mainWorkTree(abs, first.path);
  if (main === null) {
    throw failure(`The repository of ${abs} keeps its git folder apart, at ${first.path}, and git cannot name its checkout from here; open the checkout's own folder.`);
  }
  return main;
}

/** The full sha of the commit `ref` names in `repo`. */
export async function resolveCommit(repo: string, ref: string): Promise<string> {
  if (ref.length === 0 || ref.startsWith('-') || ref.includes('\0')) {
    throw usageError(`Base '${ref}' is not a valid git revision.`);
  }
  // The default base: a branch's or a detached HEAD's commit is read from git's files (no process).
  if (ref === 'HEAD') {
    const head = await readHeadFromFiles(repo).catch(() => undefined);
    if (head !== undefined) return head.head;
  }
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: repo, allowFailure: true });
  const sha = res.stdout.trim();
  // The person named it: a name that is no commit (unknown, or a tree or blob) is bad input.
  if (res.code !== 0 || !isCommitId(sha)) throw usageError(`Base '${ref}' is not a commit in ${repo}.`);
  return sha;
}

/**
 * The full ref `base` names by git's own rule (gitrevisions: `<name>` itself when it is a full ref,
 * then `refs/<name>`, tags, branches, remote-tracking branches, the first that exists) — the rule
 * `resolveCommit` read the base's commit by when the agent started, so a landing goes where the
 * agent came from: `heads/main` is branch main, even beside a branch named `heads/main` (which git
 * only warns of), and `main` is tag main when both exist. A symbolic ref is followed as git follows
 * it: `origin` (refs/remotes/origin/HEAD) is the remote's branch its HEAD points at. Null when it
 * names no ref (a commit, `main~1`, a name that is gone), or a remote's HEAD that points at nothing.
 */
export async function baseRefName(repo: string, base: string): Promise<string | null> {
  if (base.length === 0 || base.startsWith('-') || /[\0*?[\\]/.test(base)) return null;
  const rules = [base, `refs/${base}`, `refs/tags/${base}`, `refs/heads/${base}`, `refs/remotes/${base}`, `refs/remotes/${base}/HEAD`].filter((r) => r.startsWith('refs/'));
  // One process for every rule; its patterns also match refs below each name, so only exact names count.
  // `%(symref)`: where a symbolic ref leads, followed to its end (one that leads nowhere is not listed).
  const res = await runGit(['for-each-ref', '--format=%(refname) %(symref)', ...rules], { cwd: repo, allowFailure: true, names: true });
  const found = new Map<string, string>();
  for (const line of res.code === 0 ? res.stdout.split('\n') : []) {
    const gap = line.indexOf(' ');
    if (gap > 0) found.set(line.slice(0, gap), line.slice(gap + 1));
  }
  const ref = rules.find((r) => found.has(r));
  if (ref === undefined) return null;
  const target = found.get(ref);
  if (target) return target;
  // A remote's HEAD set to a commit (no symbolic ref) names no branch of the remote.
  return /^refs\/remotes\/.+\/HEAD$/.test(ref) ? null : ref;
}

/** Throws a usage error unless `name` is a valid branch name. */
export async function checkBranchName(repo: string, name: string): Promise<void> {
  // `refs/heads/HEAD` is refused by newer git; leave such names (and every unusual one) to git.
  if (name !== 'HEAD' && !name.startsWith('-') && isPlainValidRef(`refs/heads/${name}`)) return;
  const res = await runGit(['check-ref-format', '--branch', name], { cwd: repo, allowFailure: true });
  if (res.code !== 0 || name.startsWith('-')) throw usageError(`'${name}' is not a valid branch name.`);
}

/** Whether `ref` is a valid full ref name (git-check-ref-format), asking git only for unusual names. */
export async function isValidRefName(repo: string, ref: string): Promise<boolean> {
  if (isPlainValidRef(ref)) return true;
  const res = await runGit(['check-ref-format', ref], { cwd: repo, allowFailure: true });
  return res.code === 0;
}
