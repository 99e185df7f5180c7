/** Paddock: Compare Attempts — the group's attempts side by side, as a markdown preview. */
import * as vscode from 'vscode';
import { compareUri } from '../compareDocument';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';
import { targetGroup } from './groupTarget';

export function registerCompareAttempts(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.compareAttempts', async (...args: unknown[]) => {
    const group = await targetGroup(s, args, vscode.l10n.t('Compare the attempts of which group?'));
    if (!group) return undefined;
    const uri = compareUri(group.id, group.title);
    s.compare.refresh(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.commands.executeCommand('markdown.showPreview', uri);
    return doc.getText();
  });
}
