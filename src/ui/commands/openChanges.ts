/** Paddock: Open All Changes — every changed file of an agent in one multi-diff editor. */
import * as vscode from 'vscode';
import { changedFiles } from '../../core/git';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { hasLiveWorktree } from '../../core/operations/rules';
import { diffSides } from './diffSides';
import { printable } from '../../core/common/printable';

export function registerOpenChanges(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.openChanges', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Open the changes of which agent?'), filter: hasLiveWorktree });
    if (!job?.worktree || !job.baseSha) return;
    const files = await changedFiles(job.repo, job.worktree, job.baseSha, job.branch);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('"{0}" has no changes against {1}.', printable(job.title), job.base ?? vscode.l10n.t('its base')));
      return;
    }
    await vscode.commands.executeCommand('vscode.changes', `Changes of "${printable(job.title)}"`, files.map((f) => diffSides(job, f)));
  });
}
