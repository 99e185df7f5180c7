/** Paddock: Apply to Workspace — the agent's whole diff (commits and uncommitted work) as uncommitted changes in the main worktree. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { canLand } from '../../core/operations/rules';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { afterLanding, askLandingChoices, landingArgs, showLandingFailure } from './landingFlow';

export function registerApply(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.apply', async (...args: unknown[]) => {
    const opts = landingArgs(args);
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Apply the work of which agent?'), filter: canLand });
    if (!job) return undefined;
    const choices = await askLandingChoices(job, opts, { uncommitted: false });
    if (!choices) return undefined;
    try {
      const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Applying to workspace') }, () =>
        s.coordinator.apply(job.id, { running: choices.running }),
      );
      void vscode.commands.executeCommand('workbench.view.scm');
      await afterLanding(s, report.job, vscode.l10n.t('Applied "{0}" to {1}: {2} file(s) changed, uncommitted.', printable(job.title), report.into, report.files.length), opts.cleanUp);
      return report;
    } catch (err) {
      const shown = showLandingFailure(s, 'paddock.apply', job, err);
      if (shown) return shown;
      throw err;
    }
  });
}
