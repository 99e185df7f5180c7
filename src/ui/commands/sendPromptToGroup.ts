/** Paddock: Send Prompt to All Running — types the same text and Enter into every running attempt of a group. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';
import { targetGroup } from './groupTarget';

export function registerSendPromptToGroup(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.sendPromptToGroup', async (...args: unknown[]) => {
    const text = typeof args[1] === 'string' ? args[1] : undefined;
    const group = await targetGroup(s, args, vscode.l10n.t('Send a prompt to the attempts of which group?'));
    if (!group) return undefined;
    const prompt = text ?? (await vscode.window.showInputBox({ title: vscode.l10n.t('Send to every running attempt of "{0}"', printable(group.title)), prompt: vscode.l10n.t('Typed into each running attempt, followed by Enter.'), ignoreFocusOut: true }));
    if (!prompt) return undefined;
    const report = await s.coordinator.sendToGroup(group.id, prompt);
    s.log.info(`sent to ${report.sent.join(', ')} of group ${group.id}`);
    return report;
  });
}
