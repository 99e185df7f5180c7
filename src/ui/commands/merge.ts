/** Paddock: Merge into Base… — land the agent's branch on its base: merge, squash, rebase or fast-forward only. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { landingTarget } from '../../core/operations/landingTarget';
import { canLand } from '../../core/operations/rules';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { afterLanding, askLandingChoices, landingArgs, showLandingFailure, type LandingArgs } from './landingFlow';

type Strategy = NonNullable<LandingArgs['strategy']>;
type FastForward = NonNullable<LandingArgs['fastForward']>;

const WORDS: Record<string, string> = { ff: 'Fast-forwarded', merge: 'Merged', squash: 'Squashed', rebase: 'Rebased' };

/** How to land: a strategy, and for a plain merge the person's `--ff` / `--no-ff` when picked instead of git's merge.ff. */
interface HowToLand {
  strategy: Strategy;
  fastForward?: FastForward;
}

async function pickStrategy(job: JobRecord, into: string): Promise<HowToLand | undefined> {
  const items: (vscode.QuickPickItem & HowToLand)[] = [
    { label: vscode.l10n.t('Merge'), description: vscode.l10n.t("fast-forward, or a merge commit when {0} has moved (as git's merge.ff says)", into), strategy: 'merge' },
    { label: vscode.l10n.t('Merge with a Merge Commit'), description: vscode.l10n.t("always a merge commit, even where a fast-forward would do (--no-ff, over git's merge.ff)"), strategy: 'merge', fastForward: 'never' },
    { label: vscode.l10n.t('Merge, Fast-Forward If Possible'), description: vscode.l10n.t("a fast-forward where it can, else a merge commit (--ff, over git's merge.ff)"), strategy: 'merge', fastForward: 'allow' },
    { label: vscode.l10n.t('Squash and Merge'), description: vscode.l10n.t('one new commit on {0} with all the changes', into), strategy: 'squash' },
    { label: vscode.l10n.t('Rebase and Merge'), description: vscode.l10n.t("the agent's commits replayed on top of {0}", into), strategy: 'rebase' },
    { label: vscode.l10n.t('Fast-Forward Only'), description: vscode.l10n.t('only if {0} has not moved', into), strategy: 'ff-only' },
  ];
  const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Merge "{0}" into {1}', printable(job.title), into), placeHolder: vscode.l10n.t('How to land it') });
  return chosen && { strategy: chosen.strategy, fastForward: chosen.fastForward };
}

/** The modal's words: what happens to which branch, and that a conflict changes nothing. */
export function mergeConfirmation(job: JobRecord, into: string, strategy: Strategy, fastForward?: FastForward): { message: string; detail: string; button: string } {
  const branch = job.branch ?? '';
  const plainMerge: Record<FastForward, string> = {
    never: vscode.l10n.t("{0} gets a merge commit of {1}, even where a fast-forward would do (--no-ff: git's merge.ff setting is not asked).", into, branch),
    allow: vscode.l10n.t("{0} is fast-forwarded to {1}, or gets a merge commit if it has moved (--ff: git's merge.ff setting is not asked).", into, branch),
  };
  const how: Record<Strategy, string> = {
    merge: vscode.l10n.t("{0} is fast-forwarded to {1}, or gets a merge commit if it has moved; git's merge.ff setting is honoured (false: always a merge commit, only: a fast-forward or nothing).", into, branch),
    squash: vscode.l10n.t('{0} gets one new commit with all the changes of {1}.', into, branch),
    rebase: vscode.l10n.t("The agent's commits are replayed on top of {0} (in a temporary worktree) and {0} is fast-forwarded to them; {1} itself is left as it is.", into, branch),
    'ff-only': vscode.l10n.t('{0} is fast-forwarded to {1}; if it has moved, nothing happens.', into, branch),
  };
  return {
    message: vscode.l10n.t('Merge "{0}" into {1}?', printable(job.title), into),
    detail: [
      strategy === 'merge' && fastForward !== undefined ? plainMerge[fastForward] : how[strategy],
      vscode.l10n.t('If {0} is checked out, its files are updated there; with uncommitted changes it is refused (nothing is stashed).', into),
      vscode.l10n.t("On a conflict nothing changes: the files are listed, and Resolve in Agent's Worktree brings {0} into the agent's branch to resolve them there.", into),
      vscode.l10n.t('Nothing already on {0} is rewritten and nothing is pushed.', into),
    ].join('\n\n'),
    button: strategy === 'squash' ? vscode.l10n.t('Squash and Merge') : strategy === 'rebase' ? vscode.l10n.t('Rebase and Merge') : vscode.l10n.t('Merge'),
  };
}

export function registerMerge(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.merge', async (...args: unknown[]) => {
    const opts = landingArgs(args);
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Merge which agent into its base?'), filter: canLand });
    if (!job) return undefined;
    const into = await landingTarget(job, opts.into);
    const how: HowToLand | undefined = opts.strategy !== undefined ? { strategy: opts.strategy, fastForward: opts.fastForward } : await pickStrategy(job, into);
    if (!how) return undefined;
    const { strategy, fastForward } = how;
    if (!opts.confirmed) {
      const words = mergeConfirmation(job, into, strategy, fastForward);
      if ((await vscode.window.showWarningMessage(words.message, { modal: true, detail: words.detail }, words.button)) !== words.button) return undefined;
    }
    const choices = await askLandingChoices(job, opts);
    if (!choices) return undefined;
    try {
      const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Merging into {0}', into) }, () =>
        s.coordinator.merge(job.id, { ...choices, into, strategy, fastForward, message: opts.message }),
      );
      // A landing found done by an earlier run that was stopped before it recorded it: only the record is new.
      const said = report.earlier
        ? `"${job.title}" was already ${WORDS[report.kind].toLowerCase()} into ${into} (${report.commit.slice(0, 12)}) by a landing stopped before it was recorded; recorded now.`
        : `${WORDS[report.kind]} "${job.title}" into ${into} (${report.commit.slice(0, 12)}).`;
      await afterLanding(s, report.job, said, opts.cleanUp);
      return report;
    } catch (err) {
      const shown = showLandingFailure(s, 'paddock.merge', job, err);
      if (shown) return shown;
      throw err;
    }
  });
}
