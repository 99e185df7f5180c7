/** Paddock: Send Prompt — types text and Enter into the agent's terminal. */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { canSend } from '../../core/operations/rules';
import { sendToAgent } from '../../core/operations/send';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

export function registerSendPrompt(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.sendPrompt', async (...args: unknown[]) => {
    const text = typeof args[1] === 'string' ? args[1] : undefined;
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Send a prompt to which agent?'), filter: canSend });
    if (!job) return;
    const prompt = text ?? (await vscode.window.showInputBox({ title: vscode.l10n.t('Send to "{0}"', printable(job.title)), prompt: vscode.l10n.t('Typed into the agent, followed by Enter.'), ignoreFocusOut: true }));
    if (!prompt) return;
    await sendToAgent(s.store, job.id, prompt);
  });
}
