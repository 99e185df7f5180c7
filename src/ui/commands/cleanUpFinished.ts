/** Paddock: Clean Up Finished Agents — every ended agent, with the same guarantees as Clean Up. */
import * as vscode from 'vscode';
import { isTerminalState } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { confirmCleanup, optionsFrom, runCleanups } from './cleanupFlow';
import { registerCommand } from './command';

export function registerCleanUpFinished(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.cleanUpFinished', async (...args: unknown[]) => {
    const opts = optionsFrom(args);
    await s.agents.ready();
    const jobs = s.agents.visibleAgents().filter((j) => isTerminalState(j.lifecycle.state) && !j.cleanup);
    if (jobs.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Paddock: no finished agent to clean up.'));
      return [];
    }
    const answer = opts.confirmed ? { deleteBranch: opts.deleteBranch ?? false } : await confirmCleanup(jobs);
    if (!answer) return [];
    return runCleanups(s, jobs, (job) => s.coordinator.cleanup(job.id, { deleteBranch: answer.deleteBranch }));
  });
}
