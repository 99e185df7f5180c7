/**
 * Whether the worktree a launch made still holds only what the launch put there, so the launcher's
 * own undo (a launch failing after git while it held the job's lock throughout, a worker that never
 * claimed) may remove it. A worktree is on the record, open to anyone, from the moment git made it;
 * anything not provably the launch's own — or that cannot be told — keeps it for Clean Up, which
 * captures it first. A launcher that finds its agent ended by someone else never comes here: it
 * removes nothing at all (launch.ts).
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { branchTip, currentBranch, headCommit, localChanges, operationInProgress } from '../git/checkout';
import { worktreeGitDir } from '../git/headFiles';
import { runGit } from '../git/runGit';
import type { JobRecord } from '../store';
import { launchFilesOf, notTheLaunchCopies } from './launchCopies';

/** Why the launch's worktree is not provably untouched (null: it is, and may go). */
export async function launchWorktreeTouched(job: JobRecord): Promise<string | null> {
  const { worktree, branch, baseSha, repo } = job;
  if (!worktree || !branch || !baseSha) return 'the record does not say what the launch made';
  const tip = await branchTip(repo, branch);
  if (tip !== null && tip !== baseSha) return `branch ${branch} has moved from where the launch made it`;
  // git makes the branch before the folder: a launch that died between left only the branch.
  const folder = existsSync(worktree);
  if (folder && ((await currentBranch(worktree)) !== branch || (await headCommit(worktree)) !== baseSha)) return 'its worktree has another commit checked out';
  const history = await reflogSays(repo, branch, baseSha, folder ? worktree : null);
  if (history) return history;
  if (!folder) return null;
  const stopped = await operationInProgress(worktree);
  if (stopped) return `${stopped} is under way in it`;
  const own = await ownGitDirSays(worktree);
  if (own) return own;
  const changes = await localChanges(worktree, 'all');
  if (changes.tracked.length > 0) return `${changes.tracked.length} tracked file(s) changed in it`;
  const populated = await populatedSubmodule(worktree);
  if (populated) return `its submodule ${populated} has been checked out`;
  const ignored = await runGit(['ls-files', '-z', '--others', '--ignored', '--exclude-standard'], { cwd: worktree, names: true });
  const extra = [...changes.untracked, ...ignored.stdout.split('\0').filter(Boolean)];
  // A folder holding no file (empty, or only empty folders) someone made: listed by `--directory` alone.
  const plan = await launchFilesOf(job);
  // The folders a copy half-made (it failed part-way) are the launch's own: a planned file's parents.
  const empty = await folderWithoutFiles(worktree, [...extra, ...plan.copied, ...plan.linked]);
  if (empty) return `${empty} in it is a folder the launch did not make`;
  if (extra.length === 0) return null;
  return notTheLaunchCopies(plan, job.repo, worktree, extra);
}

/**
 * A commit made and then reset away still lives in a reflog: an entry at another commit than the
 * base. With reflogs off (or emptied) nothing can say so: then the worktree is kept, never guessed.
 */
async function reflogSays(repo: string, branch: string, baseSha: string, worktree: string | null): Promise<string | null> {
  const off = await runGit(['config', '--bool', 'core.logAllRefUpdates'], { cwd: worktree ?? repo, allowFailure: true });
  if (off.stdout.trim() === 'false') return 'reflogs are off in its repository, so what was done in it cannot be told';
  for (const [cwd, ref] of [[repo, `refs/heads/${branch}`], ...(worktree ? [[worktree, 'HEAD'] as const] : [])] as const) {
    const log = await runGit(['reflog', 'show', '--format=%H', ref, '--'], { cwd, allowFailure: true });
    const shas = log.stdout.split('\n').filter(Boolean);
    const which = ref === 'HEAD' ? 'its HEAD' : `branch ${branch}`;
    if (shas.length === 0) return `${which} has no reflog, so what was done in it cannot be told`;
    if (shas.some((sha) => sha !== baseSha)) return `${which} has been at other commits since the launch made it`;
  }
  return null;
}

/** What lives in the worktree's own git dir and goes with it: a lock, its own refs (refs/worktree/*, refs/bisect/*), submodule repositories. */
async function ownGitDirSays(worktree: string): Promise<string | null> {
  const gitDir = await worktreeGitDir(worktree);
  if (gitDir === undefined) return 'its git dir could not be found';
  if (existsSync(join(gitDir, 'locked'))) return 'it is locked (git worktree lock)';
  if ((await readdir(join(gitDir, 'modules')).catch(() => [])).length > 0) return 'it holds submodule repositories';
  const refs = await runGit(['for-each-ref', '--format=%(refname)', 'refs/worktree/', 'refs/bisect/'], { cwd: worktree, allowFailure: true });
  if (refs.code !== 0) return 'its own refs could not be listed';
  const ref = refs.stdout.split('\n').find(Boolean);
  return ref ? `it has its own ref ${ref}` : null;
}

/**
 * A folder git does not track that holds none of `files` (empty, or only empty folders): git lists
 * no file in it, so no other look sees it. Only untracked folders are walked, never the checkout.
 */
async function folderWithoutFiles(worktree: string, files: readonly string[]): Promise<string | null> {
  const listed = await runGit(['ls-files', '-z', '--others', '--directory'], { cwd: worktree, names: true });
  const holds = (dir: string) => files.some((f) => f.startsWith(dir));
  for (const top of listed.stdout.split('\0').filter((d) => d.endsWith('/'))) {
    if (!holds(top)) return top;
    for (const e of await readdir(join(worktree, top), { recursive: true, withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const rel = `${relative(worktree, join(e.parentPath, e.name)).split(sep).join('/')}/`;
      if (!holds(rel)) return rel;
    }
  }
  return null;
}

/** The first submodule whose folder has anything in it: a checkout holds an empty folder at each. */
async function populatedSubmodule(worktree: string): Promise<string | null> {
  const staged = await runGit(['ls-files', '-z', '--stage'], { cwd: worktree, names: true });
  for (const entry of staged.stdout.split('\0')) {
    if (!entry.startsWith('160000 ')) continue;
    const path = entry.slice(entry.indexOf('\t') + 1);
    if ((await readdir(join(worktree, path)).catch(() => [])).length > 0) return path;
  }
  return null;
}
