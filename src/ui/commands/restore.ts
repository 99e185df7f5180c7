/** Paddock: Restore Worktree — re-create a cleaned agent's worktree from its evidence. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { defaultRestoreTarget } from '../../core/coordinator';
import { canRestore } from '../../core/operations/rules';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

function destinationFrom(args: unknown[]): string | undefined {
  const o = args.find((a): a is { to: string } => !!a && typeof a === 'object' && typeof (a as { to?: unknown }).to === 'string');
  return o?.to;
}

export function registerRestore(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.restore', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Restore the worktree of which agent?'), filter: canRestore });
    if (!job) return undefined;
    let to = destinationFrom(args) ?? defaultRestoreTarget(job) ?? undefined;
    if (to === undefined) {
      to = await vscode.window.showInputBox({
        title: vscode.l10n.t('Restore "{0}"', printable(job.title)),
        prompt: vscode.l10n.t('Its old worktree folder is in use: restore into this new folder'),
        value: `${job.worktree ?? job.repo}-restored`,
        validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A folder path is needed')),
      });
      if (!to) return undefined;
    }
    const result = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Restoring worktree') }, () =>
      s.coordinator.restore(job.id, to),
    );
    s.log.info(`restore ${job.id}: ${result.path} (${result.branchNote}); ${result.files} file(s), ${result.archived} archived`);
    void vscode.window.showInformationMessage(printable(vscode.l10n.t('Restored "{0}" to {1} ({2}).', job.title, result.path, result.branchNote)), vscode.l10n.t('Open in New Window')).then((choice) => {
      if (choice) void vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(result.path), { forceNewWindow: true });
    });
    return result;
  });
}
