/** Where an agent's worktree and branch go. */
import * as path from 'node:path';

/** `<repo-parent>/<repo-name>.worktrees/<id>`, or `<worktreeRoot>/<repo-name>/<id>` when the setting is given. */
export function worktreePathFor(repo: string, id: string, worktreeRoot: string | null): string {
  const name = path.basename(repo);
  if (worktreeRoot) return path.join(path.resolve(worktreeRoot), name, id);
  return path.join(path.dirname(repo), `${name}.worktrees`, id);
}

export function branchNameFor(id: string): string {
  return `paddock/${id}`;
}
