/** Paddock: Stop — ends the agent's whole process session; keeps worktree, branch and output. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { isConfirmed, registerCommand, targetJobs } from './command';
import { canStop } from '../../core/operations/rules';
import { printable } from '../../core/common/printable';

export function registerStop(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.stop', async (...args: unknown[]) => {
    const confirmed = isConfirmed(args);
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Stop which agents?'), filter: canStop, many: true });
    if (jobs.length === 0) return [];
    if (!confirmed) {
      const what = jobs.length === 1 ? `"${printable(jobs[0].title)}"` : vscode.l10n.t('{0} agents', jobs.length);
      const stopLabel = vscode.l10n.t('Stop');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Stop {0}?', what),
        {
          modal: true,
          detail: vscode.l10n.t('Paddock sends SIGTERM to every process of the agent\'s session, then SIGKILL after the grace period (paddock.stopGraceSeconds).\n\nKept: the worktree, the branch and the agent\'s output.\nDeleted: nothing.'),
        },
        stopLabel,
      );
      if (choice !== stopLabel) return [];
    }
    return vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Stopping agents') }, async () => {
      const reports = await Promise.all(jobs.map((job) => s.coordinator.stop(job.id)));
      const failed = reports.filter((r) => !r.stopped);
      for (const r of reports) s.log.info(`stop ${r.id}: ${r.stopped ? r.state : `not proven stopped: ${r.reason}`}`);
      if (failed.length) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Could not prove {0}.', failed.map((r) => vscode.l10n.t('{0} stopped ({1})', r.id, String(r.reason))).join('; ')), vscode.l10n.t('Show Log')).then((c) => c && s.log.show());
      }
      return reports;
    });
  });
}
