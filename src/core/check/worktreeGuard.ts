/**
 * A check runs in the agent's worktree, and a check command can change what
 * it finds there: a formatter rewrites files, a test deletes or resets them, a
 * script commits or checks out. The agent's work must not be lost or altered
 * silently, so before the check runs the worktree's full state (tracked,
 * modified, untracked, not ignored) is made durable as a commit under
 * `refs/paddock/checks/<id>`; after it, the state is read again. Unchanged:
 * the ref goes back to what it was. Changed: the ref is kept and the check's
 * summary says which files changed and where the work before the check is.
 */
import { worktreeTree, fileChanges } from '../attempts/attemptTree';
import { describeError } from '../common/errors';
import { printable } from '../common/printable';
import { NO_HOOKS, runGit } from '../git/runGit';
import { SNAPSHOT_AUTHOR } from '../git/evidence';

/** Where the work as it was before an agent's latest check that changed it is kept. */
export function checkGuardRefFor(id: string): string {
  return `refs/paddock/checks/${id}`;
}

/** File names named in the summary at most (the count is exact). */
const NAMED_FILES = 5;

export interface WorktreeGuard {
  repo: string;
  worktree: string;
  ref: string;
  before: { tree: string; head: string | null };
  /** The commit now at `ref` (the state before the check). */
  commit: string;
  /** What `ref` held before (an earlier check's kept state, its parent too); null when it did not exist. */
  previous: string | null;
  /** The agent's branch: what proves a registration that lost track its own (worktreeGitEnv). */
  branch?: string | null;
}

/** Makes the worktree's state durable under the agent's check ref, before the check runs. */
export async function guardWorktree(repo: string, worktree: string, id: string, branch?: string | null): Promise<WorktreeGuard> {
  const ref = checkGuardRefFor(id);
  const before = await worktreeTree(repo, worktree, branch);
  const old = await runGit(['rev-parse', '--verify', '-q', `${ref}^{commit}`], { cwd: repo, allowFailure: true });
  const previous = old.code === 0 ? old.stdout.trim() : null;
  // An earlier check's kept state stays reachable through this one (a later check must not drop it).
  const parents = [...(before.head ? [before.head] : []), ...(previous ? [previous] : [])].flatMap((sha) => ['-p', sha]);
  const message = `paddock: agent ${id}'s worktree before its check\n\nWorktree: ${worktree}\nCaptured: ${new Date().toISOString()}\n`;
  const commit = (await runGit(['commit-tree', before.tree, ...parents], { cwd: repo, env: SNAPSHOT_AUTHOR, input: message })).stdout.trim();
  await runGit(['update-ref', ref, commit, previous ?? ''], { cwd: repo, config: NO_HOOKS });
  return { repo, worktree, ref, before, commit, previous, branch };
}

/**
 * After the check: '' when it left the worktree as it was (the ref is put back), else the line the
 * check's summary ends with, naming what changed and the ref holding the work from before.
 */
export async function worktreeChangesByCheck(guard: WorktreeGuard): Promise<string> {
  const kept = `the work as it was before the check is kept in ${guard.ref}`;
  let after: { tree: string; head: string | null };
  try {
    after = await worktreeTree(guard.repo, guard.worktree, guard.branch);
  } catch (err) {
    return `\n(the worktree could not be read after the check: ${describeError(err)}; ${kept})`;
  }
  if (after.tree === guard.before.tree && after.head === guard.before.head) {
    const restore = guard.previous ? ['update-ref', guard.ref, guard.previous, guard.commit] : ['update-ref', '-d', guard.ref, guard.commit];
    await runGit(restore, { cwd: guard.repo, allowFailure: true, config: NO_HOOKS }).catch(() => undefined);
    return '';
  }
  let changed: string[];
  try {
    changed = (await fileChanges(guard.repo, guard.before.tree, after.tree)).map((f) => printable(f.path));
  } catch (err) {
    // The check has run: its own result stands, and what could not be compared is said beside it.
    return `\n(the check changed the worktree, but what it changed could not be listed: ${describeError(err)}; ${kept})`;
  }
  const what: string[] = [];
  if (changed.length > 0) {
    const named = changed.slice(0, NAMED_FILES).join(', ');
    const more = changed.length > NAMED_FILES ? `, and ${changed.length - NAMED_FILES} more` : '';
    what.push(`${changed.length} file${changed.length === 1 ? '' : 's'} (${named}${more})`);
  }
  if (after.head !== guard.before.head) what.push(`its HEAD (from ${guard.before.head?.slice(0, 10) ?? 'none'} to ${after.head?.slice(0, 10) ?? 'none'})`);
  return `\n(the check changed the worktree: ${what.join(' and ')}; ${kept})`;
}
