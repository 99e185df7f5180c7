/** Paddock: Retry Cleanup Now — runs an incomplete cleanup at once and resets its backoff. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { canRetryCleanup } from '../../core/operations/rules';
import { runCleanups } from './cleanupFlow';
import { registerCommand, targetJobs } from './command';

export function registerRetryCleanup(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.retryCleanup', async (...args: unknown[]) => {
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Retry the cleanup of which agent?'), filter: canRetryCleanup, many: true });
    return runCleanups(s, jobs, (job) => s.coordinator.retryCleanup(job.id));
  });
}
