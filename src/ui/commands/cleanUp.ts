/** Paddock: Clean Up — stop, save the work, remove the worktree (and the branch when safe). */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { canCleanUp } from '../../core/operations/rules';
import { confirmCleanup, optionsFrom, runCleanups } from './cleanupFlow';
import { registerCommand, targetJobs } from './command';

export function registerCleanUp(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.cleanUp', async (...args: unknown[]) => {
    const opts = optionsFrom(args);
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Clean up which agents?'), filter: canCleanUp, many: true });
    if (jobs.length === 0) return [];
    const answer = opts.confirmed ? { deleteBranch: opts.deleteBranch ?? false } : await confirmCleanup(jobs);
    if (!answer) return [];
    return runCleanups(s, jobs, (job) => s.coordinator.cleanup(job.id, { deleteBranch: answer.deleteBranch }));
  });
}
