/**
 * The "Paddock Agent" entry of the terminal menu: starts a new agent (same
 * questions as Start Agent) and gives VS Code a terminal attached to it.
 */
import * as vscode from 'vscode';
import type { JobRecord } from '../core/store/schema';
import type { PaddockServices } from './services';
import { AgentPseudoterminal } from './terminals/agentPseudoterminal';

export function registerAgentTerminalProfile(s: PaddockServices): vscode.Disposable {
  return vscode.window.registerTerminalProfileProvider('paddock.agentTerminal', {
    async provideTerminalProfile(): Promise<vscode.TerminalProfile | undefined> {
      const job = (await vscode.commands.executeCommand('paddock.startAgent', { openTerminal: false })) as JobRecord | undefined;
      if (!job) return undefined;
      const pty = new AgentPseudoterminal(s.store, { jobId: job.id, title: job.title, readOnly: false }, s.log);
      return new vscode.TerminalProfile({ name: pty.name, pty, isTransient: true, iconPath: new vscode.ThemeIcon('hubot') });
    },
  });
}
