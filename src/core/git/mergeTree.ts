/**
 * Three-way merges computed in the object database alone (`git merge-tree
 * --write-tree`, git 2.38+): no index, no working tree, no ref is touched, so
 * a conflict — or a SIGKILL — leaves nothing to undo. The objects written are
 * unreachable until a ref is moved to a commit made from them.
 */
import { failure } from '../common/errors';
import { firstLine, runGit } from './runGit';
import { identityHint } from './identityHint';
import { isCommitId } from './commitId';

export type TreeMerge = { clean: true; tree: string } | { clean: false; conflicts: string[] };

/** Merges `theirs` into `ours` (their merge base found by git); the resulting tree, or the conflicting paths. */
export async function mergeTrees(repo: string, ours: string, theirs: string, opts: { allowUnrelatedHistories?: boolean } = {}): Promise<TreeMerge> {
  const unrelated = opts.allowUnrelatedHistories ? ['--allow-unrelated-histories'] : [];
  const res = await runGit(['merge-tree', '--write-tree', '--name-only', '-z', ...unrelated, '--end-of-options', ours, theirs], { cwd: repo, allowFailure: true, names: true });
  if (res.code !== 0 && res.code !== 1) {
    if (/unknown option|usage: git merge-tree/.test(res.stderr)) throw failure('Landing needs git 2.38 or newer (git merge-tree --write-tree); nothing was changed.');
    throw failure(`git merge-tree failed in ${repo}: ${firstLine(res.stderr) || `exit code ${res.code}`}; nothing was changed.`);
  }
  const fields = res.stdout.split('\0');
  const tree = fields[0]?.trim() ?? '';
  if (res.code === 0) return { clean: true, tree };
  // After the tree: one conflicted path per field (repeated per stage) up to an empty field, then messages.
  const conflicts: string[] = [];
  for (const name of fields.slice(1)) {
    if (name === '') break;
    if (!conflicts.includes(name)) conflicts.push(name);
  }
  return { clean: false, conflicts };
}

/**
 * A commit of `tree` with `parents` and `message` (author and committer from git's config and
 * environment; signed as `commit.gpgSign` says, or as `signing` — `-S`, `-S<key>`, `--no-gpg-sign` — says over it).
 * `lastLine`: 'completed' adds a final newline the message lacks; 'as given' commits it byte for byte (a message git
 * merge cleaned, which `verbatim` leaves without one).
 */
export async function commitTree(
  repo: string,
  tree: string,
  parents: readonly string[],
  message: string,
  env?: NodeJS.ProcessEnv,
  signing?: string | null,
  lastLine: 'completed' | 'as given' = 'completed',
): Promise<string> {
  const args = ['commit-tree', ...(signing ? [signing] : []), tree];
  for (const p of parents) args.push('-p', p);
  const res = await runGit(args, { cwd: repo, input: lastLine === 'as given' || message.endsWith('\n') ? message : `${message}\n`, env, allowFailure: true });
  if (res.code !== 0) {
    throw failure(`Could not make a commit in ${repo}: ${firstLine(res.stderr) || `exit code ${res.code}`}${identityHint(res.stderr)}; nothing was changed.`);
  }
  return res.stdout.trim();
}

/** The tree a commit records. */
export async function treeOf(repo: string, commit: string): Promise<string> {
  const res = await runGit(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], { cwd: repo });
  return res.stdout.trim();
}

/** Whether `ancestor` is reachable from `descendant` (or is it). */
export async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  const res = await runGit(['merge-base', '--is-ancestor', ancestor, descendant], { cwd: repo, allowFailure: true });
  if (res.code > 1) throw failure(`git merge-base failed in ${repo}: ${firstLine(res.stderr)}`);
  return res.code === 0;
}

/**
 * Whether each of two commits is reachable from the other (or is it), in one git process: `a` is an
 * ancestor of `b` exactly when `a` is their only best common ancestor, and the other way round.
 * Answers as `isAncestor(a, b)` and `isAncestor(b, a)` do, with their error.
 */
export async function ancestry(repo: string, a: string, b: string): Promise<{ aInB: boolean; bInA: boolean }> {
  // git prints full ids: anything else (a short id, a name) is asked the long way.
  if (!isCommitId(a) || !isCommitId(b)) {
    const [aInB, bInA] = await Promise.all([isAncestor(repo, a, b), isAncestor(repo, b, a)]);
    return { aInB, bInA };
  }
  const res = await runGit(['merge-base', '--all', a, b], { cwd: repo, allowFailure: true });
  if (res.code > 1) throw failure(`git merge-base failed in ${repo}: ${firstLine(res.stderr)}`);
  const bases = res.code === 0 ? res.stdout.split('\n').map((l) => l.trim()).filter(Boolean) : [];
  const only = bases.length === 1 ? bases[0] : null;
  return { aInB: only !== null && only === a, bInA: only !== null && only === b };
}

/** The best common ancestor of two commits, or null for unrelated histories. */
export async function mergeBase(repo: string, a: string, b: string): Promise<string | null> {
  const res = await runGit(['merge-base', a, b], { cwd: repo, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : null;
}

/**
 * How many merge commits `tip` has that `base` lacks: the commits a rebase onto `base` would
 * replay. A rebase replays single-parent commits only, so what a merge commit carries of its own
 * (a conflict's resolution, a change made in it) would be dropped.
 */
export async function mergeCommitsBetween(repo: string, base: string, tip: string): Promise<number> {
  const res = await runGit(['rev-list', '--count', '--min-parents=2', '--end-of-options', tip, `^${base}`], { cwd: repo });
  return Number(res.stdout.trim());
}
