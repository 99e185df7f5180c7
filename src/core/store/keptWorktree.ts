/**
 * The words a failed launch's record carries when its worktree and branch are kept (bug 132), and
 * the detail as shown: once Clean Up has removed the worktree, the words about keeping it are no
 * longer true and are not shown (the record keeps them; what cleanup did is its own line).
 */
import type { JobRecord } from './schema';

const KEPT_MARK = '; its worktree and branch ';

/** Why kept, and what Clean Up and a retry then do with it — true of both. */
export function keptWorktreeWords(branch: string, why: string): string {
  return `${KEPT_MARK.slice(2)}${branch} are kept, ${why}: paddock cleanup captures the work in them before it removes the worktree (a branch with commits of its own stays); a retry runs on top of that work`;
}

/** The lifecycle detail to show: without the kept words once cleanup removed the worktree. */
export function shownDetail(job: Pick<JobRecord, 'lifecycle' | 'cleanup'>): string | null {
  const detail = job.lifecycle.detail;
  if (detail === null || job.cleanup?.phase !== 'complete') return detail;
  const at = detail.indexOf(KEPT_MARK);
  return at < 0 ? detail : detail.slice(0, at);
}
