/** Paddock: Retry — a new generation of an ended agent in the same worktree. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { canRetry } from '../../core/operations/rules';
import { registerCommand, targetJobs } from './command';
import { openTerminalOnStart } from '../config';

export function registerRetry(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.retry', async (...args: unknown[]) => {
    const jobs = await targetJobs(s, args, {
      placeHolder: vscode.l10n.t('Retry which agent?'),
      filter: canRetry,
    });
    const results = [];
    for (const job of jobs) {
      const next = await s.coordinator.retry(job.id);
      s.log.info(`retry ${job.id}: generation ${next.lifecycle.generation}`);
      if (openTerminalOnStart()) s.terminals.attach(next.id, next.title, { preserveFocus: true });
      results.push(next);
    }
    return results;
  });
}
