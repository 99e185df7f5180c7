/** Paddock: Stop All Agents — proves each stopped, or says which did not and why. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerStopAll(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.stopAll', async (arg?: unknown) => {
    const opts = arg as { confirmed?: boolean } | undefined;
    if (!opts?.confirmed) {
      const choice = await vscode.window.showWarningMessage(
        'Stop all agents?',
        { modal: true, detail: 'Every running or queued agent in this store is stopped (SIGTERM, then SIGKILL after the grace period).\n\nKept: worktrees, branches and output.\nDeleted: nothing.' },
        'Stop All',
      );
      if (choice !== 'Stop All') return undefined;
    }
    const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: 'Stopping all agents' }, () => s.coordinator.stopAll());
    s.log.info(`stop all: ${report.stopped.length} stopped, ${report.notStopped.length} not proven stopped`);
    if (report.notStopped.length) {
      void vscode.window.showErrorMessage(
        `Not proven stopped: ${report.notStopped.map((n) => `${n.id} (${n.reason})`).join('; ')}.`,
        'Show Log',
      ).then((c) => c && s.log.show());
    }
    return report;
  });
}
