/**
 * The submodule commits a patch applied to a working tree carries. `git apply` without `--index`
 * writes no gitlink: a submodule moved to another commit, added or removed leaves at most an empty
 * folder, and nothing in `git status` — the change would be said applied and never arrive. A
 * gitlink lives in the index alone (the submodule's own checkout is its own), so it is written
 * there, as `git apply --index`, `git cherry-pick -n` and `git stash apply` write it; the
 * submodule's files are left as they are, as git leaves them without --recurse-submodules.
 */
import { ABSENT_MODE, GITLINK_MODE, type PathChange } from './treeChanges';
import { GIT_BULK_TIMEOUT_MS, runGit } from './runGit';

const NO_ID = '0'.repeat(40);

/** Writes into `worktree`'s index the gitlinks `changes` (HEAD → `tree`) add, change or remove. */
export async function stageGitlinks(worktree: string, tree: string, changes: readonly PathChange[]): Promise<void> {
  const linked = changes.filter((c) => c.newMode === GITLINK_MODE || c.oldMode === GITLINK_MODE);
  if (linked.length === 0) return;
  const added = linked.filter((c) => c.newMode === GITLINK_MODE).map((c) => c.path);
  const ids = new Map<string, string>();
  if (added.length > 0) {
    const res = await runGit(['ls-tree', '-z', '--full-tree', tree, '--', ...added], { cwd: worktree, env: { GIT_LITERAL_PATHSPECS: '1' }, timeoutMs: GIT_BULK_TIMEOUT_MS });
    // "<mode> <type> <id>\t<path>"
    for (const entry of res.stdout.split('\0').filter(Boolean)) ids.set(entry.slice(entry.indexOf('\t') + 1), entry.split(' ')[2].split('\t')[0]);
  }
  const lines = linked.map((c) => {
    if (c.newMode !== GITLINK_MODE) {
      // A gitlink turned into a file or a link: git apply wrote that, and updates no index entry either way.
      return c.newMode === ABSENT_MODE ? `0 ${NO_ID}\t${c.path}` : null;
    }
    const id = ids.get(c.path);
    if (id === undefined) throw new Error(`the tree has no entry for ${c.path}`);
    return `${GITLINK_MODE} ${id}\t${c.path}`;
  });
  const input = lines.filter((l): l is string => l !== null).map((l) => `${l}\0`).join('');
  if (input !== '') await runGit(['update-index', '-z', '--index-info'], { cwd: worktree, input, timeoutMs: GIT_BULK_TIMEOUT_MS });
}
