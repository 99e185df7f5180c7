/** Paddock: Stop All Agents — proves each stopped, or says which did not and why. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerStopAll(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.stopAll', async (arg?: unknown) => {
    const opts = arg as { confirmed?: boolean } | undefined;
    if (!opts?.confirmed) {
      const stopAllLabel = vscode.l10n.t('Stop All');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Stop all agents?'),
        { modal: true, detail: vscode.l10n.t('Every running or queued agent in this store is stopped, every check still running and what ended agents left running (SIGTERM, then SIGKILL after the grace period).\n\nKept: worktrees, branches and output.\nDeleted: nothing.') },
        stopAllLabel,
      );
      if (choice !== stopAllLabel) return undefined;
    }
    const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Stopping all agents') }, () => s.coordinator.stopAll());
    s.log.info(`stop all: ${report.stopped.length} stopped, ${report.notStopped.length} not proven stopped`);
    if (report.notStopped.length) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Not proven stopped: {0}.', report.notStopped.map((n) => `${n.id} (${n.reason})`).join('; ')),
        vscode.l10n.t('Show Log'),
      ).then((c) => c && s.log.show());
    }
    return report;
  });
}
