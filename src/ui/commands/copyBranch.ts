/** Paddock: Copy Branch Name. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { hasBranch } from '../../core/operations/rules';
import { registerCommand, targetJobs } from './command';

export function registerCopyBranch(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.copyBranch', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Copy the branch of which agent?'), filter: hasBranch });
    if (!job?.branch) return;
    await vscode.env.clipboard.writeText(job.branch);
    vscode.window.setStatusBarMessage(`Copied ${job.branch}`, 3000);
  });
}
