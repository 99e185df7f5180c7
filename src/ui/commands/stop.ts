/** Paddock: Stop — ends the agent's whole process session; keeps worktree, branch and output. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { isConfirmed, registerCommand, targetJobs } from './command';
import { canStop } from '../../core/operations/rules';
import { printable } from '../../core/common/printable';
import type { StopReport } from '../../core/operations/types';
import { UnreadableNode } from '../tree/nodes';

export function registerStop(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.stop', async (...args: unknown[]) => {
    const confirmed = isConfirmed(args);
    if (args[0] instanceof UnreadableNode) return stopUnreadableRow(s, args[0], confirmed);
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

/** The row of a record that cannot be read, whose worker still runs: its processes are ended by their marker, the record left as it is. */
async function stopUnreadableRow(s: PaddockServices, node: UnreadableNode, confirmed: boolean): Promise<StopReport[]> {
  if (!confirmed) {
    const stopLabel = vscode.l10n.t('Stop');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Stop unreadable agent {0}?', node.jobId),
      {
        modal: true,
        detail: vscode.l10n.t(
          'Its record cannot be read ({0}). Paddock sends SIGTERM to every process that carries the agent\'s marker, then SIGKILL after the grace period (paddock.stopGraceSeconds).\n\nKept: the worktree, the branch, the output and the record as it is.\nDeleted: nothing.',
          printable(node.reason),
        ),
      },
      stopLabel,
    );
    if (choice !== stopLabel) return [];
  }
  const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Stopping agents') }, () => s.coordinator.stop(node.jobId));
  s.log.info(`stop ${report.id}: ${report.stopped ? report.state : `not proven stopped: ${report.reason}`}`);
  if (!report.stopped) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not prove {0}.', vscode.l10n.t('{0} stopped ({1})', report.id, String(report.reason))), vscode.l10n.t('Show Log')).then((c) => c && s.log.show());
  }
  return [report];
}
