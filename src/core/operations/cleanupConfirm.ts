/**
 * What the confirmation before a cleanup says beyond its fixed lines: the linked worktrees outside
 * the agent's that a repository inside it registers (outsideWorktrees.ts). Their folders are not
 * touched, but their git data is archived and removed with the agent's worktree, so git fails in
 * them until a restore: the summary and a consent stop said so only once the cleanup had begun,
 * after the person had agreed to it. Read as the capture reads them, from the nested `.git` entries.
 */
import { pathExists } from '../common/paths';
import { clipText } from '../common/clipText';
import { printable } from '../common/printable';
import { findNestedGitEntries } from '../git/nestedGitEntries';
import { outsideWorktreesOf, type OutsideWorktree } from '../git/outsideWorktrees';

/**
 * The outside worktrees of each repository inside `worktree` today; none when it is gone or cannot
 * be read. Only the folders holding a `.git` are looked for (their listings, no stat of each file,
 * as the capture's inventory walk needs): the modal waited 6 s on a 125,000-file worktree before.
 * Throws `signal`'s reason when the person cancels the look.
 */
export async function outsideWorktreesNow(worktree: string | null | undefined, signal?: AbortSignal): Promise<OutsideWorktree[]> {
  if (!worktree || !(await pathExists(worktree))) return [];
  try {
    const found = await findNestedGitEntries(worktree, { signal });
    // A cancel while their registrations are read (after the walk) is a cancel too, at once: no
    // dialog, and no waiting on a read that may be slow (a network disk) — bug 224.
    const outside = await untilAborted(outsideWorktreesOf(worktree, found.nested), signal);
    signal?.throwIfAborted();
    return outside;
  } catch (err) {
    if (signal?.aborted) throw err;
    return [];
  }
}

/** `work`, or `signal`'s reason as soon as it is aborted (the work itself goes on unheard). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** How many outside worktrees the confirmation names one by one; the rest are counted. */
export const OUTSIDE_CONFIRM_LINES = 20;

/**
 * One line per outside worktree for the confirmation's list of what is kept and what stops working
 * (past 20, a count of the rest). One rule for the window's modal and the CLI's question: only the
 * way back differs (`restore`: the window's Restore Worktree, the CLI's `paddock restore ID`).
 */
export function outsideConfirmLines(found: readonly OutsideWorktree[], restore = 'Restore Worktree'): string[] {
  const lines = found.slice(0, OUTSIDE_CONFIRM_LINES).map((o) => {
    const on = o.branch ? ` (on ${clipText(printable(o.branch), 200)})` : '';
    // Locked and away (bug 226): nothing there to break today, but it comes back expecting this git data.
    if (o.away) return `• ${clipText(printable(o.folder), 500)}${on}, a linked worktree of ${clipText(printable(o.repo), 200)} in the agent's worktree, locked and away (its folder is not there now, as on a drive not mounted): its git data (HEAD, index, commits) is archived with the worktree, and when it comes back git fails there until ${restore} brings it back`;
    return `• ${clipText(printable(o.folder), 500)}${on}, a linked worktree of ${clipText(printable(o.repo), 200)} in the agent's worktree: its files stay, its git data (HEAD, index, commits) is archived with the worktree, and git fails there until ${restore} brings it back`;
  });
  const more = found.length - lines.length;
  if (more > 0) lines.push(`• …and ${more} more linked worktree${more === 1 ? '' : 's'} outside the agent's, the same (the cleanup's summary names each)`);
  return lines;
}
