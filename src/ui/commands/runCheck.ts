/** Paddock: Run Check — the repository's check command in an ended agent's worktree, its result on the row. */
import * as vscode from 'vscode';
import { checkInWords } from '../../core/attempts/compareReport';
import { printable } from '../../core/common/printable';
import { canCheck } from '../../core/operations/rules';
import { coordinatorSettings } from '../config';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

export function registerRunCheck(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.runCheck', async (...args: unknown[]) => {
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Run the check in which agents\' worktrees?'), filter: canCheck, many: true });
    if (jobs.length === 0) return [];
    const settingCommand = coordinatorSettings(s.trustedFolders).checkCommand ?? null;
    return vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Running the check') }, async () => {
      // Sequential from here; the capacity limit orders them anyway, and the first refusal (no command) is said once.
      const results = [];
      for (const job of jobs) {
        const check = await s.coordinator.check(job.id, { settingCommand });
        s.log.info(`check of ${job.id}: ${check.state}`);
        results.push(check);
        if (jobs.length === 1) {
          const words = `${printable(job.title)}: ${checkInWords(check)}`;
          if (check.state === 'passed') void vscode.window.showInformationMessage(words);
          else void vscode.window.showWarningMessage(words, { detail: printable(check.summary.split('\n').slice(-5).join('\n')) } as vscode.MessageOptions);
        }
      }
      return results;
    });
  });
}
