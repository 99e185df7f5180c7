/**
 * What Clean Up, Retry Cleanup Now and Clean Up Finished share: the modal that
 * says exactly what is kept (snapshot ref, patch, an unmerged branch) and what
 * is deleted (the worktree folder, a branch whose commits exist elsewhere), and
 * running cleanups with progress in the view.
 */
import * as vscode from 'vscode';
import type { CleanupReport } from '../../core/coordinator';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { printable } from '../../core/common/printable';

export interface CleanupOptions {
  confirmed?: boolean;
  deleteBranch?: boolean;
}

export function optionsFrom(args: unknown[]): CleanupOptions {
  const o = args.find((a) => a && typeof a === 'object' && ('confirmed' in a || 'deleteBranch' in a));
  return (o ?? {}) as CleanupOptions;
}

/** Asks; returns undefined when the person cancels, else whether to delete branches. */
export async function confirmCleanup(jobs: JobRecord[]): Promise<{ deleteBranch: boolean } | undefined> {
  const what = jobs.length === 1 ? `"${printable(jobs[0].title)}"` : `${jobs.length} agents`;
  const refs = jobs.map((j) => `refs/paddock/snapshots/${j.id}`).join(', ');
  const detail = [
    'Kept:',
    `• a snapshot of each worktree's full state (${refs}) and a patch in the job folder`,
    '• ignored files, empty folders and nested repositories, in an archive in the job folder (Restore Worktree brings all of it back)',
    '• branches with commits that exist nowhere else',
    '• the agent\'s output log',
    '',
    'Deleted:',
    '• the worktree folder (after the snapshot is saved)',
    '• regenerable folders such as node_modules and .venv (paddock.cleanup.regenerable), counted in the report',
    '• the agent\'s branch, only when all its commits are reachable from another branch — or when you choose "Clean Up and Delete Branch"',
    '',
    'A running agent is stopped first. If anything could not be archived, nothing is removed until you choose Clean Up Anyway.',
  ].join('\n');
  const choice = await vscode.window.showWarningMessage(`Clean up ${what}?`, { modal: true, detail }, 'Clean Up', 'Clean Up and Delete Branch');
  if (!choice) return undefined;
  return { deleteBranch: choice === 'Clean Up and Delete Branch' };
}

export async function runCleanups(s: PaddockServices, jobs: JobRecord[], run: (job: JobRecord) => Promise<CleanupReport>): Promise<CleanupReport[]> {
  return vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: 'Cleaning up agents' }, async () => {
    const reports: CleanupReport[] = [];
    for (const job of jobs) {
      const report = await run(job);
      reports.push(report);
      const c = report.job.cleanup;
      s.log.info(`cleanup ${job.id}: ${c?.phase ?? 'none'}${report.notes.length ? ` — ${report.notes.join('; ')}` : ''}`);
      if (c?.phase === 'incomplete' && c.awaitingConsent) {
        void vscode.window
          .showWarningMessage(printable(`Cleanup of "${job.title}" stopped before removing anything: ${c.lastError ?? 'something would be lost'}`), 'Clean Up Anyway…', 'Show Log')
          .then((choice) => {
            if (choice === 'Clean Up Anyway…') void vscode.commands.executeCommand('paddock.cleanUpAnyway', job.id);
            if (choice === 'Show Log') s.log.show();
          });
      } else if (c?.phase === 'incomplete') {
        void vscode.window
          .showWarningMessage(printable(`Cleanup of "${job.title}" is incomplete at ${c.stage ?? 'an unknown stage'}: ${c.lastError ?? 'see the log'}. It retries automatically.`), 'Retry Cleanup Now', 'Show Log')
          .then((choice) => {
            if (choice === 'Retry Cleanup Now') void vscode.commands.executeCommand('paddock.retryCleanup', job.id);
            if (choice === 'Show Log') s.log.show();
          });
      }
    }
    return reports;
  });
}

