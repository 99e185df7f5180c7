/**
 * The submodule commits a patch applied to a working tree carries. `git apply` without `--index`
 * writes no gitlink: a submodule moved to another commit, added or removed leaves at most an empty
 * folder, and nothing in `git status` — the change would be said applied and never arrive. A
 * gitlink lives in the index alone (the submodule's own checkout is its own), so it is written
 * there, as `git apply --index`, `git cherry-pick -n` and `git stash apply` write it; the
 * submodule's files are left as they are, as git leaves them without --recurse-submodules.
 *
 * What belongs with a gitlink is staged with it, as `git cherry-pick -n` stages it: `.gitmodules`
 * (else a plain `git commit` records a submodule nobody can fetch, or a moved one registered at
 * its old path), and the files at or under a path that turns from a folder into a submodule or back
 * (the index cannot hold a folder's files and a gitlink at its path at once).
 */
import { ABSENT_MODE, GITLINK_MODE, type PathChange } from './treeChanges';
import { encodeName } from './pathBytes';
import { firstLine, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';

const NO_ID = '0'.repeat(40);

/** The changed paths staged with the gitlinks among `changes`: none when no gitlink changes. */
export function gitlinkRelated(changes: readonly PathChange[]): PathChange[] {
  const links = changes.filter((c) => c.newMode === GITLINK_MODE || c.oldMode === GITLINK_MODE).map((c) => c.path);
  if (links.length === 0) return [];
  const related = (p: string) => p === '.gitmodules' || links.some((l) => p === l || p.startsWith(`${l}/`));
  return changes.filter((c) => related(c.path));
}

/** Writes into `worktree`'s index what `changes` (HEAD → the agent's tree) change at the gitlinks' paths, as that tree has it. */
export async function stageGitlinks(worktree: string, changes: readonly PathChange[]): Promise<void> {
  const staged = gitlinkRelated(changes);
  if (staged.length === 0) return;
  // Removals first: a submodule that becomes a folder leaves its path before the folder's files take it.
  // The mode and id are diff-tree's own (read keeping every byte of the path): no second reading to mangle a name.
  const removed = staged.filter((c) => c.newMode === ABSENT_MODE).map((c) => `0 ${NO_ID}\t${c.path}\0`);
  const written = staged.filter((c) => c.newMode !== ABSENT_MODE).map((c) => `${c.newMode} ${c.newId}\t${c.path}\0`);
  const input = encodeName([...removed, ...written].join(''));
  const res = await runGit(['update-index', '-z', '--index-info'], { cwd: worktree, input, allowFailure: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
  if (res.code !== 0) throw new Error(indexWriteProblem(res.stderr, res.code));
}

/** git's refusal to write the index, as one clause: most often another git process holding its lock. */
function indexWriteProblem(stderr: string, code: number): string {
  const locked = /Unable to create '([^']*index\.lock)'/.exec(stderr);
  if (locked) return `another git process holds the index lock (${locked[1]})`;
  const why = firstLine(stderr).replace(/^(fatal|error): /, '').replace(/\.$/, '');
  return `staging the submodules' commits in the index failed (${why || `git update-index exit code ${code}`})`;
}
