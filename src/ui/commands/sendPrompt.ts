/** Paddock: Send Prompt — types text and Enter into the agent's terminal. */
import * as vscode from 'vscode';
import { WorkerClient } from '../../core/protocol/client';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { printable } from '../../core/common/printable';

export function registerSendPrompt(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.sendPrompt', async (...args: unknown[]) => {
    const text = typeof args[1] === 'string' ? args[1] : undefined;
    const [job] = await targetJobs(s, args, {
      placeHolder: 'Send a prompt to which agent?',
      filter: (j) => j.lifecycle.state === 'running' || j.lifecycle.state === 'waiting',
    });
    if (!job) return;
    const prompt = text ?? (await vscode.window.showInputBox({ title: `Send to "${printable(job.title)}"`, prompt: 'Typed into the agent, followed by Enter.', ignoreFocusOut: true }));
    if (!prompt) return;
    const client = await WorkerClient.connect(s.store, job.id);
    try {
      await client.hello();
      await client.send(prompt);
    } finally {
      client.dispose();
    }
  });
}
