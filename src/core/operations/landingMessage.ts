/**
 * A landing's commit message that git's cleanup (commit.cleanup, --cleanup= in mergeOptions) would
 * leave empty, refused before anything changes: before a running agent is stopped and before its
 * uncommitted work is committed. A message the landing will not commit is not refused: a merge
 * that fast-forwards makes no commit, and one with nothing to land (a squash's too) is refused for
 * that in its place — asked first, in the order the landing itself asks them.
 */
import { ancestry, branchTips, cleanedMessage, committedMessage, type LandStrategy, type MergeSettings } from '../git';

export interface EarlyMessageCheck {
  repo: string;
  branch: string;
  into: string;
  strategy: LandStrategy;
  message: string;
  settings: MergeSettings;
  /**
   * Work of the agent's will be committed first (`--commit-uncommitted` and its worktree holds some,
   * or a running agent is to be stopped and may leave some): a new commit on its branch's tip.
   */
  commitsFirst: Promise<boolean> | boolean;
  /** The agent's and the target's tips, when read already. */
  tips?: Promise<(string | null)[]>;
}

export async function refuseEmptyMessageEarly(check: EarlyMessageCheck): Promise<void> {
  const { strategy, message, settings } = check;
  if (strategy === 'rebase') return;
  // git commit, after git merge --squash, commits a squash's message; git merge a merge's.
  const cleanup = strategy === 'squash' ? settings.squashCleanup : settings.cleanup;
  if (cleanedMessage(message, cleanup) !== '') return;
  const { policy } = settings.fastForward;
  // merge.log's list of the agent's commits, which the commit of its work adds to, is left to the landing to judge.
  if (strategy === 'merge' && (policy === 'only' || settings.log !== null)) return;
  const [source, from] = await (check.tips ?? branchTips(check.repo, [check.branch, check.into]));
  // No agent branch, or no target: refused for that where the landing asks.
  if (source === null || from === null) return;
  // A stop or a commit of the agent's work only adds commits on its tip: what is a fast-forward now stays one.
  const { aInB, bInA } = await ancestry(check.repo, source, from);
  // Nothing to land: the agent's tip is in the target already, and no work of its is to be committed.
  if (aInB && !(await check.commitsFirst)) return;
  if (strategy === 'merge' && policy === 'allow' && bInA) return;
  committedMessage(message, cleanup);
}
