/** Paddock: Keep This One — keeps one attempt; the group's others are cleaned up, their evidence saved. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { canKeep } from '../../core/operations/rules';
import type { PaddockServices } from '../services';
import { attemptLabel } from '../tree/presentation';
import { isConfirmed, registerCommand, targetJobs } from './command';

export function registerKeepAttempt(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.keepAttempt', async (...args: unknown[]) => {
    const confirmed = isConfirmed(args);
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Keep which attempt?'), filter: canKeep });
    if (!job?.group) return undefined;
    const others = s.agents.visibleAgents().filter((j) => j.group?.id === job.group!.id && j.id !== job.id && j.cleanup?.phase !== 'complete');
    if (!confirmed) {
      const detail = [
        vscode.l10n.t('Kept: {0} ({1}) — its worktree, branch and terminal, untouched.', attemptLabel(job), job.id),
        '',
        vscode.l10n.t('Cleaned up: {0}.', others.length ? others.map((o) => `${attemptLabel(o)} (${o.id})`).join(', ') : vscode.l10n.t('nothing, the others are cleaned up already')),
        vscode.l10n.t('For each: a running attempt is stopped; its full state is saved as a snapshot ref (refs/paddock/snapshots/<id>) and a patch; ignored files go into an archive; then its worktree folder is deleted. Its branch is kept when it has commits found nowhere else. Restore Worktree brings any of them back.'),
      ].join('\n');
      const keep = vscode.l10n.t('Keep This One');
      const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Keep {0} of "{1}" and clean up the other {2}?', attemptLabel(job), printable(job.group.title), others.length), { modal: true, detail }, keep);
      if (choice !== keep) return undefined;
    }
    const report = await vscode.window.withProgress({ location: { viewId: 'paddock.agents' }, title: vscode.l10n.t('Cleaning up the other attempts') }, () => s.coordinator.keepAttempt(job.id));
    if (report.failed.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} attempt(s) were not cleaned up: {1}', report.failed.length, report.failed.map((f) => `${f.id} (${f.reason})`).join('; ')));
    }
    if (report.skipped.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} attempt(s) were left as they are: {1}', report.skipped.length, report.skipped.map((f) => `${f.id} (${f.reason})`).join('; ')));
    }
    return report;
  });
}
