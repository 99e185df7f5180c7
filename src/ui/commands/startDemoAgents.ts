/**
 * Paddock: Start Demo Agents — a tour of every state with real demo agents
 * (core/operations/demoTour.ts), shown with progress in the Agents view.
 */
import * as vscode from 'vscode';
import { startDemoTour } from '../../core/operations/demoTour';
import { printable } from '../../core/common/printable';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerStartDemoAgents(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.startDemoAgents', async (...args: unknown[]) => {
    const given = args.find((a): a is { repo: string } => !!a && typeof a === 'object' && typeof (a as { repo?: unknown }).repo === 'string');
    const repo = given?.repo ?? (await s.workspaceRepos())[0];
    if (!repo) {
      void vscode.window.showErrorMessage('Paddock needs a git repository for the demo agents: open a folder that is in one.');
      return undefined;
    }
    await vscode.commands.executeCommand('paddock.agents.focus');
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Paddock: starting demo agents in every state' },
      () => startDemoTour(s.coordinator, s.store, repo),
    );
    s.log.info(`demo tour in ${printable(repo)}: ${JSON.stringify(result.agents)}; holder pid ${result.holderPid}`);
    void vscode.window.showInformationMessage(
      'Six demo agents: one waits for you (attach and answer y or n), one runs, one failed, one lost its worker, one cleanup waits for a process holding its worktree (it ends in 15 minutes), one is cleaned. Hover a row for its details.',
    );
    return result;
  });
}
