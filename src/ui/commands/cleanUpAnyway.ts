/**
 * Paddock: Clean Up Anyway — for a cleanup that stopped because something
 * could not be archived (over the size limit, unreadable): after a modal that
 * names what will be lost, the cleanup goes on and records exactly what it dropped.
 */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import type { PaddockServices } from '../services';
import { canCleanUpAnyway } from '../../core/operations/rules';
import { runCleanups } from './cleanupFlow';
import { registerCommand, targetJobs } from './command';

export function registerCleanUpAnyway(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.cleanUpAnyway', async (...args: unknown[]) => {
    const jobs = await targetJobs(s, args, { placeHolder: 'Clean up which agent anyway?', filter: canCleanUpAnyway });
    const job = jobs[0];
    if (!job) return [];
    const confirmed = args.some((a) => !!a && typeof a === 'object' && (a as { confirmed?: unknown }).confirmed === true);
    if (!confirmed) {
      const detail = [
        'Lost (cannot be archived):',
        `• ${printable(job.cleanup?.lastError ?? 'files over the archive limit or that cannot be read')}`,
        '',
        'Kept:',
        `• the snapshot refs/paddock/snapshots/${job.id} (tracked and untracked files) and the patch`,
        '• every other ignored file, empty folder and nested repository, in the archive',
        '• branches with commits that exist nowhere else',
        '',
        'Deleted: the worktree folder. What was dropped is recorded with the evidence.',
      ].join('\n');
      const choice = await vscode.window.showWarningMessage(`Clean up "${printable(job.title)}" and lose those files?`, { modal: true, detail }, 'Clean Up Anyway');
      if (choice !== 'Clean Up Anyway') return [];
    }
    return runCleanups(s, [job], (j) => s.coordinator.cleanup(j.id, { dropUnarchivable: true }));
  });
}
