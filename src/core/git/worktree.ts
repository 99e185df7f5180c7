/** Creating and removing an agent's linked worktree. */
import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { failure, usageError } from '../common/errors';
import { checkBranchName } from './repo';
import { firstLine, GitResult, runGit } from './runGit';

export interface AddWorktreeOptions {
  path: string;
  branch: string;
  baseSha: string;
  /** How long to keep retrying while another git process holds a lock (default 5000 ms). */
  lockWaitMs?: number;
}

/** Messages git prints when a lock file of a concurrent git process is in the way. */
const LOCK_CONTENTION = /Unable to create '[^']*\.lock': File exists|cannot lock ref|index\.lock/;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `git worktree add -b <branch> <path> <baseSha>`, retried briefly while a
 * concurrent git operation holds a ref or index lock (a failed attempt leaves
 * neither the branch nor the folder behind, so a retry starts clean).
 */
export async function addWorktree(repo: string, opts: AddWorktreeOptions): Promise<void> {
  await checkBranchName(repo, opts.branch);
  if (!/^[0-9a-f]{40,64}$/.test(opts.baseSha)) throw usageError(`Base '${opts.baseSha}' is not a full commit sha.`);
  const target = path.resolve(opts.path);
  if (existsSync(target)) throw failure(`Cannot create the worktree: ${target} already exists.`);
  const deadline = Date.now() + (opts.lockWaitMs ?? 5000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const res = await runGit(['worktree', 'add', '-b', opts.branch, '--', target, opts.baseSha], { cwd: repo, allowFailure: true });
    if (res.code === 0) return;
    const why = firstLine(res.stderr) || `exit code ${res.code}`;
    if (!LOCK_CONTENTION.test(res.stderr)) throw failure(`Could not create the worktree ${target}: ${why}`);
    if (Date.now() + delay > deadline) {
      throw failure(`Could not create the worktree ${target}: another git operation holds a lock in ${repo} (${why}).`);
    }
    await sleep(delay);
  }
}

export type RemoveOutcome = 'removed' | 'already-gone-pruned';

export interface WorktreeEntry {
  path: string;
  locked: boolean;
}

/** Linked and main worktrees registered in `repo` (from `git worktree list --porcelain -z`). */
export async function listWorktrees(repo: string): Promise<WorktreeEntry[]> {
  const res = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repo });
  const entries: WorktreeEntry[] = [];
  for (const field of res.stdout.split('\0')) {
    if (field.startsWith('worktree ')) entries.push({ path: field.slice('worktree '.length), locked: false });
    else if ((field === 'locked' || field.startsWith('locked ')) && entries.length > 0) entries[entries.length - 1].locked = true;
  }
  return entries;
}

function canonical(p: string): string {
  const abs = path.resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    // Gone: canonicalise the parent, which usually still exists.
    try {
      return path.join(realpathSync(path.dirname(abs)), path.basename(abs));
    } catch {
      return abs;
    }
  }
}

/**
 * Removes a linked worktree whatever its state: dirty or with submodules
 * (--force), locked (--force twice), or its folder already deleted by hand
 * (then only its registration is pruned). The caller captures evidence and
 * checks holders first: this discards uncommitted work by design.
 *
 * git itself refuses the main working tree and any folder that is not one of
 * the repository's worktrees, so the common case is one git process; the
 * worktree list is read only when git refused, to say why (or to prune).
 */
export async function removeWorktree(repo: string, worktreePath: string): Promise<{ outcome: RemoveOutcome }> {
  const target = canonical(worktreePath);
  const present = existsSync(target);
  if (present) {
    const res = await runGit(['worktree', 'remove', '--force', '--force', '--', target], { cwd: repo, allowFailure: true });
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
  if (entries.length > 0 && canonical(entries[0].path) === target) {
    throw usageError(`${target} is the main working tree of ${repo}; it is never removed.`);
  }
  const entry = entries.find((e) => canonical(e.path) === target);
  if (!entry) {
    if (present) throw failure(`${target} is not a worktree of ${repo}; it was left in place.`);
    await runGit(['worktree', 'prune'], { cwd: repo });
    return { outcome: 'already-gone-pruned' };
  }
  // git may have failed to match our spelling of the path: ask again with the one it registered.
  const res = refused && entry.path === target ? refused : (await runGit(['worktree', 'remove', '--force', '--force', '--', entry.path], { cwd: repo, allowFailure: true }));
  if (res.code !== 0) {
    // A folder deleted by hand whose registration git still refuses to drop: prune it.
    if (!present) {
      await runGit(['worktree', 'prune'], { cwd: repo });
      if (!(await listWorktrees(repo)).some((e) => canonical(e.path) === target)) return { outcome: 'already-gone-pruned' };
    }
    throw failure(`Could not remove the worktree ${target}: ${firstLine(res.stderr) || `exit code ${res.code}`}`);
  }
  if (existsSync(target)) throw failure(`git removed the worktree ${target} from its list but the folder is still there.`);
  return { outcome: 'already-gone-pruned' };
}
