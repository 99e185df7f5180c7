/** Paddock: Remove from List — forget cleaned-up agents (their snapshot refs stay, and their archives holding work, in the store's kept/ folder), or an unreadable agent (its whole folder kept). */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { describeArchivedWork, unreadableKeptSentence } from '../../core/operations/archivedWork';
import { canForget } from '../../core/operations/rules';
import type { JobRecord } from '../../core/store';
import type { PaddockServices } from '../services';
import { UnreadableNode } from '../tree/nodes';
import { isConfirmed, registerCommand, targetJobs } from './command';

/** What the confirmation says is kept of each agent's archive: the same description `paddock forget` prints. */
async function archivedWorkLines(s: PaddockServices, jobs: readonly JobRecord[]): Promise<string[]> {
  const lines: string[] = [];
  for (const job of jobs) {
    // An archive that cannot be read is not named here; forget keeps it all the same (what it holds is read again under the lock).
    const work = await s.coordinator.archivedWork(job.id).catch(() => null);
    if (work) lines.push(vscode.l10n.t('"{0}" ({1}): {2}', printable(job.title), job.id, describeArchivedWork(work)));
  }
  return lines;
}

export function registerForget(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.forget', async (...args: unknown[]) => {
    const confirmed = isConfirmed(args);
    if (args[0] instanceof UnreadableNode) return forgetUnreadableRow(s, args[0], confirmed);
    const jobs = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Remove which cleaned-up agents from the list?'), filter: canForget, many: true });
    if (jobs.length === 0) return [];
    if (!confirmed) {
      const what = jobs.length === 1 ? `"${printable(jobs[0].title)}"` : vscode.l10n.t('{0} agents', jobs.length);
      const work = await archivedWorkLines(s, jobs);
      const detail = [
        vscode.l10n.t('Kept: the snapshot refs in git ({0}), with the committed and uncommitted work captured at cleanup.', jobs.map((j) => `refs/paddock/snapshots/${j.id}`).join(', ')),
        vscode.l10n.t('Deleted: the record, output log and patch in the job folder — Restore Worktree is no longer offered.'),
        ...(work.length > 0
          ? [vscode.l10n.t("Kept in the store's kept/ folder, as the snapshot refs lack it:\n{0}", work.join('\n'))]
          : [vscode.l10n.t('No archive holds work the snapshot refs lack.')]),
      ].join('\n\n');
      const remove = vscode.l10n.t('Remove from List');
      if ((await vscode.window.showWarningMessage(vscode.l10n.t('Remove {0} from the list?', what), { modal: true, detail }, remove)) !== remove) return [];
    }
    for (const job of jobs) {
      const { kept } = await s.coordinator.forget(job.id);
      s.log.info(`forget ${job.id}${kept ? `: its archive is kept in ${kept.path}` : ''}`);
    }
    return jobs.map((j) => j.id);
  });
}

/** The row of a record that cannot be read: removed from the list by keeping its whole folder in kept/ (nothing is deleted). */
async function forgetUnreadableRow(s: PaddockServices, node: UnreadableNode, confirmed: boolean): Promise<string[]> {
  if (!confirmed) {
    const remove = vscode.l10n.t('Remove from List');
    const detail = vscode.l10n.t(
      "Its record cannot be read ({0}), so what its folder holds cannot be told.\n\nKept: its whole folder (the damaged record, output and evidence), moved to the store's kept/ folder; its worktree and branch, if it had any, as they are.\nDeleted: nothing.",
      printable(node.reason),
    );
    if ((await vscode.window.showWarningMessage(vscode.l10n.t('Remove unreadable agent {0} from the list?', node.jobId), { modal: true, detail }, remove)) !== remove) return [];
  }
  const report = await s.coordinator.forget(node.jobId);
  s.log.info(`forget ${node.jobId}: ${report.unreadableKeptIn ? unreadableKeptSentence(report.unreadableKeptIn) : 'removed'}`);
  return [node.jobId];
}
