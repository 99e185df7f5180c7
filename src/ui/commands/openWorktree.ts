/** Paddock: Open Worktree in New Window. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { hasLiveWorktree } from '../../core/operations/rules';

export function registerOpenWorktree(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.openWorktree', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Open the worktree of which agent?'), filter: hasLiveWorktree });
    if (!job?.worktree) return;
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(job.worktree), { forceNewWindow: true });
  });
}
