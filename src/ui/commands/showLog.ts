/** Paddock: Show Agent Log — the agent's recorded output as plain text. */
import * as vscode from 'vscode';
import { logUri } from '../contentProviders';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

export function registerShowLog(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.showLog', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Show the log of which agent?'), filter: () => true });
    if (!job) return undefined;
    const uri = logUri(job.id, job.title);
    s.logs.refresh(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'log');
    return vscode.window.showTextDocument(doc, { preview: true });
  });
}
