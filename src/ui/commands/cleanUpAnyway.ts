/**
 * Paddock: Clean Up Anyway — for a cleanup that stopped because something
 * could not be archived (over the size limit, unreadable): after a modal that
 * names what will be lost, the cleanup goes on and records exactly what it dropped.
 * For a cleanup a failing teardown command holds, it skips that command instead.
 */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import type { PaddockServices } from '../services';
import { canCleanUpAnyway, teardownHoldsCleanup } from '../../core/operations/rules';
import { runCleanups } from './cleanupFlow';
import { isConfirmed, registerCommand, targetJobs } from './command';

export function registerCleanUpAnyway(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.cleanUpAnyway', async (...args: unknown[]) => {
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Clean up which agent anyway?'), filter: canCleanUpAnyway });
    const job = jobs[0];
    if (!job) return [];
    const confirmed = isConfirmed(args);
    if (!confirmed && teardownHoldsCleanup(job) && !job.cleanup?.awaitingConsent) {
      // Nothing is lost here: only the teardown command is given up on, should it fail once more.
      const detail = [
        vscode.l10n.t('The teardown command keeps failing: {0}', printable(job.cleanup?.lastError ?? '')),
        '',
        vscode.l10n.t('It runs once more; if it fails again it is skipped, and that is recorded.'),
        vscode.l10n.t('Kept: everything the cleanup captures (snapshot, patch, archive of ignored files).'),
        vscode.l10n.t('Deleted: the worktree folder, once its capture is proven.'),
      ].join('\n');
      const skipLabel = vscode.l10n.t('Skip Teardown and Clean Up');
      const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Clean up "{0}" without its teardown?', printable(job.title)), { modal: true, detail }, skipLabel);
      if (choice !== skipLabel) return [];
    } else if (!confirmed) {
      const detail = [
        vscode.l10n.t('Lost (cannot be archived):'),
        `• ${printable(job.cleanup?.lastError ?? vscode.l10n.t('files over the archive limit or that cannot be read'))}`,
        '',
        vscode.l10n.t('Kept:'),
        vscode.l10n.t('• the snapshot {0} (tracked and untracked files) and the patch', `refs/paddock/snapshots/${job.id}`),
        vscode.l10n.t('• every other ignored file, empty folder and nested repository, in the archive'),
        vscode.l10n.t('• branches with commits that exist nowhere else'),
        '',
        vscode.l10n.t('Deleted: the worktree folder. What was dropped is recorded with the evidence.'),
      ].join('\n');
      const anywayLabel = vscode.l10n.t('Clean Up Anyway');
      const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Clean up "{0}" and lose those files?', printable(job.title)), { modal: true, detail }, anywayLabel);
      if (choice !== anywayLabel) return [];
    }
    return runCleanups(s, [job], (j) => s.coordinator.cleanup(j.id, { dropUnarchivable: true }));
  });
}
