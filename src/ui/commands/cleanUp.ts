/**
 * Paddock: Clean Up / Retry Cleanup Now / Clean Up Finished Agents. The modal
 * says exactly what is kept (snapshot ref, patch, an unmerged branch) and what
 * is deleted (the worktree folder, a branch whose commits exist elsewhere).
 */
import * as vscode from 'vscode';
import type { CleanupReport } from '../../core/coordinator';
import { isTerminalState, JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

interface CleanupOptions {
  confirmed?: boolean;
  deleteBranch?: boolean;
}

function optionsFrom(args: unknown[]): CleanupOptions {
  const o = args.find((a) => a && typeof a === 'object' && ('confirmed' in a || 'deleteBranch' in a));
  return (o ?? {}) as CleanupOptions;
}

/** Asks; returns undefined when the person cancels, else whether to delete branches. */
async function confirm(jobs: JobRecord[]): Promise<{ deleteBranch: boolean } | undefined> {
  const what = jobs.length === 1 ? `"${jobs[0].title}"` : `${jobs.length} agents`;
  const refs = jobs.map((j) => `refs/paddock/snapshots/${j.id}`).join(', ');
  const detail = [
    'Kept:',
    `• a snapshot of each worktree's full state (${refs}) and a patch in the job folder`,
    '• branches with commits that exist nowhere else',
    '• the agent\'s output log',
    '',
    'Deleted:',
    '• the worktree folder (after the snapshot is saved)',
    '• the agent\'s branch, only when all its commits are reachable from another branch — or when you choose "Clean Up and Delete Branch"',
    '',
    'A running agent is stopped first.',
  ].join('\n');
  const choice = await vscode.window.showWarningMessage(`Clean up ${what}?`, { modal: true, detail }, 'Clean Up', 'Clean Up and Delete Branch');
  if (!choice) return undefined;
  return { deleteBranch: choice === 'Clean Up and Delete Branch' };
}

async function runCleanups(s: PaddockServices, jobs: JobRecord[], run: (job: JobRecord) => Promise<CleanupReport>): Promise<CleanupReport[]> {
  return vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: 'Cleaning up agents' }, async () => {
    const reports: CleanupReport[] = [];
    for (const job of jobs) {
      const report = await run(job);
      reports.push(report);
      const c = report.job.cleanup;
      s.log.info(`cleanup ${job.id}: ${c?.phase ?? 'none'}${report.notes.length ? ` — ${report.notes.join('; ')}` : ''}`);
      if (c?.phase === 'incomplete') {
        void vscode.window
          .showWarningMessage(`Cleanup of "${job.title}" is incomplete at ${c.stage ?? 'an unknown stage'}: ${c.lastError ?? 'see the log'}. It retries automatically.`, 'Retry Cleanup Now', 'Show Log')
          .then((choice) => {
            if (choice === 'Retry Cleanup Now') void vscode.commands.executeCommand('paddock.retryCleanup', job.id);
            if (choice === 'Show Log') s.log.show();
          });
      }
    }
    return reports;
  });
}

export function registerCleanUp(s: PaddockServices): vscode.Disposable[] {
  return [
    registerCommand(s, 'paddock.cleanUp', async (...args: unknown[]) => {
      const opts = optionsFrom(args);
      const jobs = await targetJobs(s, args, { placeHolder: 'Clean up which agents?', filter: (j) => j.cleanup?.phase !== 'complete', many: true });
      if (jobs.length === 0) return [];
      const answer = opts.confirmed ? { deleteBranch: opts.deleteBranch ?? false } : await confirm(jobs);
      if (!answer) return [];
      return runCleanups(s, jobs, (job) => s.coordinator.cleanup(job.id, { deleteBranch: answer.deleteBranch }));
    }),
    registerCommand(s, 'paddock.retryCleanup', async (...args: unknown[]) => {
      const jobs = await targetJobs(s, args, { placeHolder: 'Retry the cleanup of which agent?', filter: (j) => j.cleanup?.phase === 'incomplete', many: true });
      return runCleanups(s, jobs, (job) => s.coordinator.retryCleanup(job.id));
    }),
    registerCommand(s, 'paddock.cleanUpFinished', async (...args: unknown[]) => {
      const opts = optionsFrom(args);
      await s.tree.ready();
      const jobs = s.tree.visibleAgents().map((n) => n.job).filter((j) => isTerminalState(j.lifecycle.state) && !j.cleanup);
      if (jobs.length === 0) {
        void vscode.window.showInformationMessage('Paddock: no finished agent to clean up.');
        return [];
      }
      const answer = opts.confirmed ? { deleteBranch: opts.deleteBranch ?? false } : await confirm(jobs);
      if (!answer) return [];
      return runCleanups(s, jobs, (job) => s.coordinator.cleanup(job.id, { deleteBranch: answer.deleteBranch }));
    }),
  ];
}
