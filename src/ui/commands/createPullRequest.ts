/** Paddock: Create Pull Request — push the agent's branch (never forced) and open a pull request, or the host's compare page. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { pullRequestTitleProblem } from '../../core/operations/pullRequest';
import { canLand } from '../../core/operations/rules';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { askLandingChoices, landingArgs } from './landingFlow';

export function registerCreatePullRequest(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.createPullRequest', async (...args: unknown[]) => {
    const opts = landingArgs(args);
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Open a pull request for which agent?'), filter: canLand });
    if (!job) return undefined;
    const title =
      opts.title ??
      (await vscode.window.showInputBox({ title: vscode.l10n.t('Pull request title'), value: job.title.split('\n')[0].slice(0, 200), validateInput: (v) => pullRequestTitleProblem(v) ?? undefined }));
    if (!title) return undefined;
    const choices = await askLandingChoices(job, opts);
    if (!choices) return undefined;
    const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Pushing {0}', job.branch ?? '') }, () =>
      s.coordinator.pullRequest(job.id, { ...choices, title }),
    );
    const url = report.url;
    const opened = report.earlier
      ? report.baseHasIt
        ? vscode.l10n.t('{0} was already pushed to {1} by a pull request stopped before it was recorded, and {1}/{2} has every commit of it now; recorded now.', job.branch ?? '', report.remote, report.base)
        : vscode.l10n.t('{0} was already pushed to {1} by a pull request stopped before it was recorded; recorded now, not pushed again (open the pull request on the compare page if it is not open).', job.branch ?? '', report.remote)
      : report.opened
      ? vscode.l10n.t('Pull request opened: {0}', url ?? '')
      : url
        ? vscode.l10n.t('Pushed {0} to {1}; open the pull request on the compare page.', job.branch ?? '', report.remote)
        : vscode.l10n.t('Pushed {0} to {1}; open a pull request into {2} on your git host.', job.branch ?? '', report.remote, report.base);
    // Why gh did not open it, as core words it (one sentence, English as every message from core).
    const said = report.ghNotUsed ? `${opened} ${report.ghNotUsed}` : opened;
    s.log.info(said);
    if (url) {
      const open = report.opened ? vscode.l10n.t('Open Pull Request') : vscode.l10n.t('Open Compare Page');
      void vscode.window.showInformationMessage(printable(said), open).then((c) => {
        if (c) void vscode.env.openExternal(vscode.Uri.parse(url));
      });
    } else void vscode.window.showInformationMessage(printable(said));
    return report;
  });
}
