/**
 * What the confirmation before a cleanup says beyond its fixed lines: the linked worktrees outside
 * the agent's that a repository inside it registers (outsideWorktrees.ts). Their folders are not
 * touched, but their git data is archived and removed with the agent's worktree, so git fails in
 * them until a restore: the summary and a consent stop said so only once the cleanup had begun,
 * after the person had agreed to it. Read as the capture reads them (the worktree's walk).
 */
import { pathExists } from '../common/paths';
import { clipText } from '../common/clipText';
import { printable } from '../common/printable';
import { walkWorktree } from '../git/inventory';
import { outsideWorktreesOf, type OutsideWorktree } from '../git/outsideWorktrees';

/** The outside worktrees of each repository inside `worktree` today; none when it is gone or cannot be read. */
export async function outsideWorktreesNow(worktree: string | null | undefined): Promise<OutsideWorktree[]> {
  if (!worktree || !(await pathExists(worktree))) return [];
  try {
    const walk = await walkWorktree(worktree);
    return await outsideWorktreesOf(worktree, walk.nested);
  } catch {
    return [];
  }
}

/** One line per outside worktree for the confirmation's list of what is kept and what stops working. */
export function outsideConfirmLines(found: readonly OutsideWorktree[]): string[] {
  return found.slice(0, 20).map((o) => {
    const on = o.branch ? ` (on ${clipText(printable(o.branch), 200)})` : '';
    return `• ${clipText(printable(o.folder), 500)}${on}, a linked worktree of ${clipText(printable(o.repo), 200)} in the agent's worktree: its files stay, its git data (HEAD, index, commits) is archived with the worktree, and git fails there until Restore Worktree brings it back`;
  });
}
