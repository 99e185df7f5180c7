/** Paddock: Reveal Evidence Patch — opens the patch saved before cleanup. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

export function registerRevealPatch(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.revealPatch', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Show the patch of which agent?'), filter: (j) => Boolean(j.evidence?.patch) });
    if (!job?.evidence?.patch) return;
    await vscode.window.showTextDocument(vscode.Uri.file(job.evidence.patch), { preview: true });
  });
}
