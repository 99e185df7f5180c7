/**
 * What Clean Up, Retry Cleanup Now and Clean Up Finished share: the modal that
 * says exactly what is kept (snapshot ref, patch, an unmerged branch) and what
 * is deleted (the worktree folder, a branch whose commits exist elsewhere), the
 * linked worktrees outside the agent's whose git data goes with it, and
 * running cleanups with progress in the view.
 */
import * as vscode from 'vscode';
import type { CleanupReport } from '../../core/coordinator';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { optionsArg } from './command';
import { printable } from '../../core/common/printable';
import { cleanupShortfall } from '../../core/operations/cleanupOutcome';
import { teardownHoldsCleanup } from '../../core/operations/rules';
import { outsideConfirmLines, outsideWorktreesNow } from '../../core/operations/cleanupConfirm';
import type { OutsideWorktree } from '../../core/git/outsideWorktrees';

export interface CleanupOptions {
  confirmed?: boolean;
  deleteBranch?: boolean;
}

export function optionsFrom(args: unknown[]): CleanupOptions {
  return optionsArg(args, ['confirmed', 'deleteBranch']);
}

/**
 * The outside worktrees of the selected agents' worktrees, looked for one worktree after another
 * under a cancellable progress notification: a large worktree (or Clean Up Finished over many)
 * takes seconds, and the command seemed to do nothing until the modal. Undefined when cancelled
 * (the cleanup is not asked for, and nothing is done).
 */
async function lookForOutsideWorktrees(jobs: JobRecord[]): Promise<OutsideWorktree[] | undefined> {
  const title = vscode.l10n.t('Looking for linked worktrees outside the agents\' worktrees');
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const stop = new AbortController();
    const listener = token.onCancellationRequested(() => stop.abort(new Error('cancelled')));
    try {
      const found: OutsideWorktree[] = [];
      for (const [k, job] of jobs.entries()) {
        if (jobs.length > 1) progress.report({ message: vscode.l10n.t('{0} of {1}', k + 1, jobs.length), increment: 100 / jobs.length });
        found.push(...(await outsideWorktreesNow(job.worktree, stop.signal)));
      }
      // Cancelled at the very end (the last look had nothing left to stop): still nothing is asked.
      if (stop.signal.aborted) return undefined;
      return found;
    } catch (err) {
      if (stop.signal.aborted) return undefined;
      throw err;
    } finally {
      listener.dispose();
    }
  });
}

/** Asks; returns undefined when the person cancels, else whether to delete branches. */
export async function confirmCleanup(jobs: JobRecord[]): Promise<{ deleteBranch: boolean } | undefined> {
  const what = jobs.length === 1 ? `"${printable(jobs[0].title)}"` : vscode.l10n.t('{0} agents', jobs.length);
  const refs = jobs.map((j) => `refs/paddock/snapshots/${j.id}`).join(', ');
  // Named before the person agrees, not only in the summary after (core/operations/cleanupConfirm).
  const found = await lookForOutsideWorktrees(jobs);
  if (found === undefined) return undefined;
  const outside = outsideConfirmLines(found);
  const outsideLines = outside.length === 0 ? [] : ['', vscode.l10n.t('Kept, but git stops working there until Restore Worktree:'), ...outside];
  const detail = [
    vscode.l10n.t('Kept:'),
    vscode.l10n.t('• a snapshot of each worktree\'s full state ({0}) and a patch in the job folder', refs),
    vscode.l10n.t('• ignored files, empty folders and nested repositories, in an archive in the job folder (Restore Worktree brings all of it back)'),
    vscode.l10n.t('• branches with commits that exist nowhere else'),
    vscode.l10n.t('• the agent\'s output log'),
    ...outsideLines,
    '',
    vscode.l10n.t('Deleted:'),
    vscode.l10n.t('• the worktree folder (after the snapshot is saved)'),
    vscode.l10n.t('• regenerable folders such as node_modules and .venv (paddock.cleanup.regenerable), counted in the report'),
    vscode.l10n.t('• the agent\'s branch, only when all its commits are reachable from another branch — or when you choose "Clean Up and Delete Branch"'),
    '',
    vscode.l10n.t('A running agent is stopped first. If anything could not be archived, nothing is removed until you choose Clean Up Anyway.'),
  ].join('\n');
  const deleteBranchLabel = vscode.l10n.t('Clean Up and Delete Branch');
  const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Clean up {0}?', what), { modal: true, detail }, vscode.l10n.t('Clean Up'), deleteBranchLabel);
  if (!choice) return undefined;
  return { deleteBranch: choice === deleteBranchLabel };
}

export async function runCleanups(s: PaddockServices, jobs: JobRecord[], run: (job: JobRecord) => Promise<CleanupReport>): Promise<CleanupReport[]> {
  return vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Cleaning up agents') }, async () => {
    const reports: CleanupReport[] = [];
    for (const job of jobs) {
      const report = await run(job);
      reports.push(report);
      const c = report.job.cleanup;
      s.log.info(`cleanup ${job.id}: ${c?.phase ?? 'none'}${report.notes.length ? ` — ${report.notes.join('; ')}` : ''}`);
      const showLogLabel = vscode.l10n.t('Show Log');
      // The sentence is the one every door uses (core/operations/cleanupOutcome); its kind picks the action.
      const shortfall = cleanupShortfall(c, `"${job.title}"`);
      if (shortfall) {
        const consent = shortfall.kind === 'awaiting-consent';
        const actionLabel = consent ? vscode.l10n.t('Clean Up Anyway…') : vscode.l10n.t('Retry Cleanup Now');
        const message = consent ? shortfall.sentence : `${shortfall.sentence.replace(/\.$/, '')}. ${vscode.l10n.t('It retries automatically.')}`;
        // A failing teardown holds it: the person may also skip that command (the capture still in full).
        const skipTeardownLabel = vscode.l10n.t('Skip Teardown…');
        const actions = !consent && teardownHoldsCleanup(report.job) ? [actionLabel, skipTeardownLabel, showLogLabel] : [actionLabel, showLogLabel];
        void vscode.window.showWarningMessage(printable(message), ...actions).then((choice) => {
          if (choice === actionLabel) void vscode.commands.executeCommand(consent ? 'paddock.cleanUpAnyway' : 'paddock.retryCleanup', job.id);
          if (choice === skipTeardownLabel) void vscode.commands.executeCommand('paddock.cleanUpAnyway', job.id);
          if (choice === showLogLabel) s.log.show();
        });
      }
    }
    return reports;
  });
}

