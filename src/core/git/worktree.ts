/** Creating and removing an agent's linked worktree. */
import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { failure, usageError } from '../common/errors';
import { checkBranchName } from './repo';
import { firstLine, GitResult, runGit, SIBLING_BEING_ADDED } from './runGit';
import { isCommitId } from './commitId';
import { branchExistsInFiles } from './headFiles';
import { listWorktrees } from './worktreeList';
import { forgetWorktreeRegistration, resolvedPath } from './worktreeRegistration';
import { forgetInnerWorktrees } from './innerForget';
import { setTimeout as sleep } from 'node:timers/promises';

export { listWorktrees, type WorktreeEntry } from './worktreeList';

export interface AddWorktreeOptions {
  path: string;
  branch: string;
  baseSha: string;
  /** How long to keep retrying while another git process holds a lock (default 5000 ms). */
  lockWaitMs?: number;
  /**
   * Called once, as soon as git's `worktree add` process is running: work to do alongside git's
   * checkout (the long part) starts then, and spawning it does not delay git's own start.
   */
  whileCheckingOut?: () => void;
}

/** Messages git prints when a lock file of a concurrent git process is in the way. */
const LOCK_CONTENTION = /Unable to create '[^']*\.lock': File exists|cannot lock ref|index\.lock/;

/**
 * `git worktree add -b <branch> <path> <baseSha>`, retried briefly while a
 * concurrent git operation holds a ref or index lock, or is adding a worktree
 * beside it (SIBLING_BEING_ADDED). git creates the branch
 * before the folder, so a failed attempt (a worktree root under a file, a
 * read-only file system, a full disk) may leave the branch, a registration or
 * part of the folder behind: each attempt undoes what it made before the
 * failure is reported or the attempt is retried.
 */
export async function addWorktree(repo: string, opts: AddWorktreeOptions): Promise<void> {
  await checkBranchName(repo, opts.branch);
  if (!isCommitId(opts.baseSha)) throw usageError(`Base '${opts.baseSha}' is not a full commit sha.`);
  const target = path.resolve(opts.path);
  if (existsSync(target)) throw failure(`Cannot create the worktree: ${target} already exists.`);
  if (await branchExists(repo, opts.branch)) throw failure(`Cannot create the worktree: branch ${opts.branch} already exists.`);
  const missingParents = missingAncestors(target);
  const deadline = Date.now() + (opts.lockWaitMs ?? 5000);
  let alongside = opts.whileCheckingOut;
  for (let delay = 40; ; delay = Math.min(delay * 2, 500)) {
    const adding = runGit(['worktree', 'add', '--quiet', '-b', opts.branch, '--', target, opts.baseSha], { cwd: repo, allowFailure: true });
    if (alongside) {
      // After this turn's microtasks: runGit has spawned git by then (its slot is free at a start's first git call, or waits in line).
      setImmediate(alongside);
      alongside = undefined;
    }
    const res = await adding;
    if (res.code === 0) return;
    const why = addFailure(res, target);
    const leftover = await undoFailedAdd(repo, target, opts.branch, opts.baseSha, missingParents);
    const undoNote = leftover ? ` (and ${leftover})` : '';
    const locked = LOCK_CONTENTION.test(res.stderr);
    if (!(locked || SIBLING_BEING_ADDED.test(res.stderr)) || leftover) throw failure(`Could not create the worktree ${target}: ${why}${undoNote}`);
    if (Date.now() + delay > deadline) {
      const inTheWay = locked ? 'another git operation holds a lock' : 'other worktrees were being added';
      throw failure(`Could not create the worktree ${target}: ${inTheWay} in ${repo} (${why}).`);
    }
    // Apart, so that adds that met each other do not meet again.
    await sleep(delay * (0.5 + Math.random()));
  }
}

/**
 * Why `worktree add` failed. git checks the worktree out and then runs the repository's
 * post-checkout hook, whose exit status becomes its own: a checkout made with no fatal line
 * from git is the hook's failure, and (git being quiet) what stderr says is the hook's.
 */
function addFailure(res: GitResult, target: string): string {
  const said = firstLine(res.stderr);
  if (!/^(fatal|error): /m.test(res.stderr) && existsSync(path.join(target, '.git'))) {
    return `the repository's post-checkout hook failed (exit ${res.code})${said ? `: ${said}` : ''}`;
  }
  return said || `exit code ${res.code}`;
}

/** From git's files when they can say (no process before every start), else from git. */
async function branchExists(repo: string, branch: string): Promise<boolean> {
  const fromFiles = await branchExistsInFiles(repo, branch);
  if (fromFiles !== undefined) return fromFiles;
  const res = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo, allowFailure: true });
  return res.code === 0;
}

/** The folders `git worktree add` would create on the way to `target` (deepest first), `target` included. */
function missingAncestors(target: string): string[] {
  const out: string[] = [];
  for (let dir = target; !existsSync(dir) && path.dirname(dir) !== dir; dir = path.dirname(dir)) out.push(dir);
  return out;
}

/**
 * Removes what a failed `worktree add` made: the branch (it did not exist before), the
 * registration, the target folder and the empty parents it created. Returns what could not be undone.
 */
async function undoFailedAdd(repo: string, target: string, branch: string, baseSha: string, createdDirs: string[]): Promise<string | undefined> {
  const problems: string[] = [];
  if (existsSync(target)) {
    // It did not exist before this attempt: whatever is in it is git's half-made checkout.
    try {
      rmSync(target, { recursive: true, force: true });
    } catch (err) {
      problems.push(`could not remove ${target}: ${(err as Error).message}`);
    }
  }
  for (const dir of createdDirs.slice(1)) {
    try {
      if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
    } catch {
      break; // not empty or not ours any more: leave it and its parents
    }
  }
  await forgetWorktreeRegistration(repo, target);
  if (await branchExists(repo, branch)) {
    // The ref alone, and only while it is still where this add made it: `branch -D` looks at every
    // worktree first, and dies on the same half-written sibling registration the add met.
    const res = await runGit(['update-ref', '-d', `refs/heads/${branch}`, baseSha], { cwd: repo, allowFailure: true });
    if (res.code !== 0) problems.push(`branch ${branch} was left behind: ${firstLine(res.stderr)}`);
  }
  return problems.length ? problems.join('; ') : undefined;
}

export type RemoveOutcome = 'removed' | 'already-gone-pruned';

/**
 * Removes a linked worktree whatever its state: dirty or with submodules
 * (--force), locked (--force twice), or its folder already deleted by hand
 * (then only its registration is removed: never the registrations of other
 * worktrees whose folders are away, as `git worktree prune` would), and then the
 * registrations of linked worktrees that were inside it and whose commits are kept
 * (innerForget.ts). The caller captures evidence and
 * checks holders first: this discards uncommitted work by design.
 *
 * git itself refuses the main working tree and any folder that is not one of
 * the repository's worktrees, so the common case is one git process; the
 * worktree list is read only when git refused, to say why (or to prune).
 */
export async function removeWorktree(repo: string, worktreePath: string): Promise<{ outcome: RemoveOutcome }> {
  const target = resolvedPath(worktreePath);
  const removed = await removeOwnRegistration(repo, target);
  // Linked worktrees made inside it went with its folder: their registrations would hold their paths.
  await forgetInnerWorktrees(repo, target);
  return removed;
}

async function removeOwnRegistration(repo: string, target: string): Promise<{ outcome: RemoveOutcome }> {
  const present = existsSync(target);
  if (present) {
    const res = await runGit(['worktree', 'remove', '--force', '--force', '--', target], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
    if (res.code === 0) {
      if (existsSync(target)) throw failure(`git removed the worktree ${target} from its list but the folder is still there.`);
      return { outcome: 'removed' };
    }
    return explainRefusal(repo, target, present, res);
  }
  return explainRefusal(repo, target, present, undefined);
}

/** After git refused (or with the folder gone): main tree, stranger, or a registration to prune. */
async function explainRefusal(repo: string, target: string, present: boolean, refused: GitResult | undefined): Promise<{ outcome: RemoveOutcome }> {
  const entries = await listWorktrees(repo);
  if (entries.length > 0 && resolvedPath(entries[0].path) === target) {
    throw usageError(`${target} is the main working tree of ${repo}; it is never removed.`);
  }
  const entry = entries.find((e) => resolvedPath(e.path) === target);
  if (!entry) {
    // git deletes `.git` and the registration first, then the files: one it could not delete (an
    // immutable file, say) leaves a folder that is no worktree any more because git began removing it.
    if (present && refused && /failed to delete/.test(refused.stderr)) {
      throw failure(`git removed the worktree ${target} from its list but could not delete all of it (${firstLine(refused.stderr) || `exit code ${refused.code}`}); what is left stays in place`);
    }
    if (present) throw failure(`${target} is not a worktree of ${repo}; it was left in place.`);
    await forgetWorktreeRegistration(repo, target);
    return { outcome: 'already-gone-pruned' };
  }
  // git may have failed to match our spelling of the path: ask again with the one it registered.
  const res = refused && entry.path === target ? refused : (await runGit(['worktree', 'remove', '--force', '--force', '--', entry.path], { cwd: repo, allowFailure: true, pastSiblingAdds: true }));
  if (res.code !== 0) {
    // A folder deleted by hand whose registration git still refuses to drop: forget it (that one only).
    if (!present) {
      await forgetWorktreeRegistration(repo, entry.path);
      if (!(await listWorktrees(repo)).some((e) => resolvedPath(e.path) === target)) return { outcome: 'already-gone-pruned' };
    }
    throw failure(`Could not remove the worktree ${target}: ${firstLine(res.stderr) || `exit code ${res.code}`}`);
  }
  if (existsSync(target)) throw failure(`git removed the worktree ${target} from its list but the folder is still there.`);
  return { outcome: 'already-gone-pruned' };
}
