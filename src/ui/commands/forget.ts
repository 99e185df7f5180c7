/** Paddock: Remove from List — forget cleaned-up agents (their snapshot refs stay). */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { canForget } from '../../core/operations/rules';
import type { PaddockServices } from '../services';
import { isConfirmed, registerCommand, targetJobs } from './command';

export function registerForget(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.forget', async (...args: unknown[]) => {
    const confirmed = isConfirmed(args);
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Remove which cleaned-up agents from the list?'), filter: canForget, many: true });
    if (jobs.length === 0) return [];
    if (!confirmed) {
      const what = jobs.length === 1 ? `"${printable(jobs[0].title)}"` : vscode.l10n.t('{0} agents', jobs.length);
      const detail = [
        vscode.l10n.t('Kept: the snapshot refs in git ({0}), with the committed and uncommitted work captured at cleanup.', jobs.map((j) => `refs/paddock/snapshots/${j.id}`).join(', ')),
        vscode.l10n.t('Deleted: the record, output log, patch and archive of ignored files in the job folder — Restore Worktree is no longer offered.'),
      ].join('\n\n');
      const remove = vscode.l10n.t('Remove from List');
      if ((await vscode.window.showWarningMessage(vscode.l10n.t('Remove {0} from the list?', what), { modal: true, detail }, remove)) !== remove) return [];
    }
    for (const job of jobs) {
      await s.coordinator.forget(job.id);
      s.log.info(`forget ${job.id}`);
    }
    return jobs.map((j) => j.id);
  });
}
