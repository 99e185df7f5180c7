/** Paddock: Stop — ends the agent's whole process session; keeps worktree, branch and output. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { canStop } from '../../core/operations/rules';
import { printable } from '../../core/common/printable';

export function registerStop(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.stop', async (...args: unknown[]) => {
    const confirmed = args.some((a) => a && typeof a === 'object' && (a as { confirmed?: boolean }).confirmed === true);
    const jobs = await targetJobs(s, args, { placeHolder: 'Stop which agents?', filter: canStop, many: true });
    if (jobs.length === 0) return [];
    if (!confirmed) {
      const what = jobs.length === 1 ? `"${printable(jobs[0].title)}"` : `${jobs.length} agents`;
      const choice = await vscode.window.showWarningMessage(
        `Stop ${what}?`,
        {
          modal: true,
          detail: 'Paddock sends SIGTERM to every process of the agent\'s session, then SIGKILL after the grace period (paddock.stopGraceSeconds).\n\nKept: the worktree, the branch and the agent\'s output.\nDeleted: nothing.',
        },
        'Stop',
      );
      if (choice !== 'Stop') return [];
    }
    return vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: 'Stopping agents' }, async () => {
      const reports = await Promise.all(jobs.map((job) => s.coordinator.stop(job.id)));
      const failed = reports.filter((r) => !r.stopped);
      for (const r of reports) s.log.info(`stop ${r.id}: ${r.stopped ? r.state : `not proven stopped: ${r.reason}`}`);
      if (failed.length) {
        void vscode.window.showErrorMessage(`Could not prove ${failed.map((r) => `${r.id} stopped (${r.reason})`).join('; ')}.`, 'Show Log').then((c) => c && s.log.show());
      }
      return reports;
    });
  });
}
