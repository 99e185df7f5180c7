/**
 * How many files of a worktree hold uncommitted work: `git status`'s entries
 * (staged, unstaged, untracked), and the edits to files flagged assume-unchanged
 * or skip-worktree that status hides (the same ones landing asks about). The
 * index file tells whether any entry is flagged, so almost always no second
 * process runs. Read-only: no index.lock is taken to refresh the index.
 */
import { settle } from '../common/early';
import { isPrintable } from '../common/printable';
import { mapConcurrently } from '../common/limiter';
import { flaggedEdits } from './flaggedFiles';
import { MOVED_SUBMODULES, READ_ONLY_GIT, runGit } from './runGit';

// MOVED_SUBMODULES: a submodule the agent moved is work `git add -A` commits, whatever submodule.<name>.ignore says.
const STATUS = ['status', '--porcelain=v2', '-z', '--untracked-files=normal', MOVED_SUBMODULES];

/** Where `git for-each-repo` finds the worktrees it is asked to visit: set with `-c` on its own command line only. */
const WORKTREE_LIST_KEY = 'paddock.statusWorktree';

/** `env`: worktreeGitEnv's for a worktree whose link the agent cut (read through the repository's registration of it). */
export async function uncommittedCount(worktree: string, env: Record<string, string> = {}): Promise<number> {
  const git = { ...READ_ONLY_GIT, ...env };
  const [out, hidden] = await Promise.all([runGit(STATUS, { cwd: worktree, env: git }), flaggedEdits(worktree, undefined, git)]);
  return statusEntries(out.stdout.split('\0')) + hidden.length;
}

/**
 * `uncommittedCount` of many worktrees of `repo`, from `processes` git processes
 * in all: each `git for-each-repo` runs the status of its share of the worktrees
 * one after another, so the caller starts a couple of processes where it would
 * start one per worktree (each start holds its event loop 5–10 ms on a slow
 * machine). A share that fails in any way (a worktree gone, a git without
 * for-each-repo, an output that does not add up) is asked worktree by worktree,
 * so each failure is that worktree's own.
 */
export async function uncommittedCounts(repo: string, worktrees: readonly string[], processes: number): Promise<PromiseSettledResult<number>[]> {
  const shares = Math.max(1, Math.min(processes, worktrees.length));
  const size = Math.ceil(worktrees.length / shares);
  const chunks = Array.from({ length: shares }, (_, i) => worktrees.slice(i * size, (i + 1) * size)).filter((c) => c.length > 0);
  const [visible, hidden] = await Promise.all([
    Promise.all(chunks.map((chunk) => statusesOf(repo, chunk))).then((parts) => parts.flat()),
    mapConcurrently(worktrees, processes, (wt) => settle(flaggedEdits(wt, undefined, READ_ONLY_GIT))),
  ]);
  return worktrees.map((_, i) => {
    const [v, h] = [visible[i], hidden[i]];
    if (v.status === 'rejected') return v;
    if (h.status === 'rejected') return h;
    return { status: 'fulfilled', value: v.value + h.value.length };
  });
}

/** The status entries of each worktree of a share, from one `for-each-repo`; one process per worktree when that fails. */
async function statusesOf(repo: string, worktrees: readonly string[]): Promise<PromiseSettledResult<number>[]> {
  // A path git's -c could not carry whole (a control character) is not put on its command line.
  if (worktrees.length > 1 && worktrees.every(isPrintable)) {
    const lists = worktrees.flatMap((wt) => ['-c', `${WORKTREE_LIST_KEY}=${wt}`]);
    // `--branch` heads each worktree's part with "# branch.oid": that is where one ends and the next begins.
    const out = await runGit([...lists, 'for-each-repo', `--config=${WORKTREE_LIST_KEY}`, ...STATUS, '--branch', '--no-ahead-behind'], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true });
    const parts = out.code === 0 ? splitByHeader(out.stdout.split('\0')) : [];
    if (parts.length === worktrees.length) return parts.map((fields) => ({ status: 'fulfilled', value: statusEntries(fields) }));
  }
  return mapConcurrently(worktrees, 1, (wt) => settle(runGit(STATUS, { cwd: wt, env: READ_ONLY_GIT }).then((o) => statusEntries(o.stdout.split('\0')))));
}

/** Porcelain v2 fields cut where each worktree's "# branch.oid" header starts. */
function splitByHeader(fields: readonly string[]): string[][] {
  const parts: string[][] = [];
  for (const f of fields) {
    if (f.startsWith('# branch.oid ')) parts.push([]);
    else if (parts.length > 0) parts.at(-1)!.push(f);
  }
  return parts;
}

/** Files named by porcelain v2 `-z` fields: ordinary (1), renamed or copied (2, its original path a field of its own), unmerged (u), untracked (?). */
function statusEntries(fields: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < fields.length; i++) {
    const kind = fields[i].slice(0, 2);
    if (kind === '1 ' || kind === 'u ' || kind === '? ') count++;
    else if (kind === '2 ') {
      count++;
      i++;
    }
  }
  return count;
}
