/**
 * A landing's commit message that git's cleanup (commit.cleanup, --cleanup= in mergeOptions) would
 * leave empty, refused before anything changes: before a running agent is stopped and before its
 * uncommitted work is committed. A message the landing will not commit is not refused: a merge
 * that fast-forwards makes no commit, and one with nothing to land is refused for that in its place.
 */
import { ancestry, branchTips, cleanedMessage, committedMessage, type LandStrategy, type MergeSettings } from '../git';

export interface EarlyMessageCheck {
  repo: string;
  branch: string;
  into: string;
  strategy: LandStrategy;
  message: string;
  settings: MergeSettings;
  /** The agent's work will be committed first (`--commit-uncommitted`): a new commit on its branch's tip. */
  commitsFirst: boolean;
  /** The agent's and the target's tips, when read already. */
  tips?: Promise<(string | null)[]>;
}

export async function refuseEmptyMessageEarly(check: EarlyMessageCheck): Promise<void> {
  const { strategy, message, settings } = check;
  // git commit, after git merge --squash, always commits the message.
  if (strategy === 'squash') committedMessage(message, settings.squashCleanup);
  if (strategy !== 'merge' || cleanedMessage(message, settings.cleanup) !== '') return;
  // merge.log's list of the agent's commits, which the commit of its work adds to, is left to the landing to judge.
  const { policy } = settings.fastForward;
  if (policy === 'only' || settings.log !== null) return;
  const [source, from] = await (check.tips ?? branchTips(check.repo, [check.branch, check.into]));
  if (source === null || from === null) return;
  // A stop or a commit of the agent's work only adds commits on its tip: what is a fast-forward now stays one.
  const { aInB, bInA } = await ancestry(check.repo, source, from);
  if (policy === 'allow' && bInA) return;
  if (aInB && !check.commitsFirst) return;
  committedMessage(message, settings.cleanup);
}
