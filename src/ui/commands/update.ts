/** Paddock: Update from Base — merge the base into the agent's branch inside its worktree. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { LandingConflict } from '../../core/git';
import { mayHaveUncommittedWork } from '../../core/operations/landingPrep';
import { canUpdate } from '../../core/operations/rules';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { optionsArg, registerCommand, targetJobs } from './command';

/** Runs Update from Base on `job`; a conflict stays in the worktree, said with its files (not a failure of Paddock). */
export async function runUpdate(s: PaddockServices, job: JobRecord, opts: { rebase?: boolean; commitUncommitted?: boolean }): Promise<unknown> {
  let commitUncommitted = opts.commitUncommitted;
  if (commitUncommitted === undefined && (await mayHaveUncommittedWork(job))) {
    const commit = vscode.l10n.t('Commit Them First');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('"{0}" has uncommitted changes in its worktree.', printable(job.title)),
      { modal: true, detail: vscode.l10n.t('They are committed on its branch first (the message is its title and prompt), so the base does not mix into them.') },
      commit,
    );
    if (choice !== commit) return undefined;
    commitUncommitted = true;
  }
  try {
    const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Updating from base') }, () =>
      s.coordinator.update(job.id, { rebase: opts.rebase, commitUncommitted }),
    );
    const said = report.updated ? vscode.l10n.t('"{0}" is updated from {1}.', job.title, report.base) : vscode.l10n.t('"{0}" is already up to date with {1}.', job.title, report.base);
    s.log.info(said);
    void vscode.window.showInformationMessage(printable(said));
    return report;
  } catch (err) {
    if (!(err instanceof LandingConflict)) throw err;
    const message = printable(err.message);
    s.log.info(`update ${job.id}: ${message}`);
    const open = vscode.l10n.t('Open Worktree');
    const send = vscode.l10n.t('Send Prompt…');
    void vscode.window.showWarningMessage(message, open, send).then((choice) => {
      if (choice === open && job.worktree) void vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(job.worktree), { forceNewWindow: true });
      if (choice === send) void vscode.commands.executeCommand('paddock.sendPrompt', job.id);
    });
    return { conflict: true, files: [...err.files] };
  }
}

export function optionsOf(args: unknown[]): { rebase?: boolean; commitUncommitted?: boolean } {
  return optionsArg(args, ['rebase', 'commitUncommitted']);
}

export function registerUpdate(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.update', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Update which agent from its base?'), filter: canUpdate });
    if (!job) return undefined;
    return runUpdate(s, job, optionsOf(args));
  });
}
