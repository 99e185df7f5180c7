/**
 * Notifications only for what needs the person, each with the actions that
 * resolve it: an agent waits for input, an agent failed, a cleanup needs
 * attention, capacity is blocked by failed cleanups.
 */
import * as vscode from 'vscode';
import { Disposable } from '../core/common/lifecycle';
import type { CapacityBlockEvent, Coordinator } from '../core/coordinator';
import type { JobRecord } from '../core/store/schema';
import { notificationsEnabled } from './config';
import type { AgentsTreeProvider } from './tree/agentsTreeProvider';
import { stateInWords } from './tree/presentation';
import { printable } from '../core/common/printable';

export class Notifier extends Disposable {
  constructor(
    tree: AgentsTreeProvider,
    coordinator: Coordinator,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(tree.onDidChangeAgentState(({ before, after }) => this.onChange(before, after)));
    this._register(coordinator.onDidChangeCapacityBlock((e) => this.onCapacity(e)));
  }

  private onChange(before: JobRecord | undefined, after: JobRecord): void {
    // First sight of a job (window start): no notification for old news.
    if (!before) return;
    const was = before.lifecycle.state;
    const is = after.lifecycle.state;
    if (is === 'waiting' && was !== 'waiting' && notificationsEnabled('waiting')) {
      void this.ask(`Agent "${after.title}" is waiting for you.`, ['Attach'], after, 'info');
    }
    if ((is === 'failed' || is === 'orphaned') && was !== is && notificationsEnabled('failed')) {
      const why = after.lifecycle.detail ? `: ${after.lifecycle.detail}` : '';
      void this.ask(`Agent "${after.title}" ${stateInWords(after)}${why}.`, ['Attach', 'Show Log', 'Retry'], after, 'error');
    }
    if (after.cleanup?.needsAttention && !before.cleanup?.needsAttention && notificationsEnabled('cleanup')) {
      void this.ask(
        `Cleanup of "${after.title}" needs attention: ${after.cleanup.lastError ?? 'it keeps failing'}.`,
        ['Retry Cleanup', 'Show Log'],
        after,
        'warning',
      );
    }
  }

  private onCapacity(e: CapacityBlockEvent): void {
    if (e.blockedBy.length === 0) return;
    const names = e.blockedBy.map((b) => `"${b.title}" (${b.stage ?? 'cleanup'}${b.lastError ? `: ${b.lastError}` : ''})`).join(', ');
    const message = `All ${e.capacity.max} agent slots are taken, ${e.blockedBy.length} by failed cleanups: ${names}.`;
    this.log.warn(message);
    if (!notificationsEnabled('cleanup')) return;
    void vscode.window.showWarningMessage(printable(message), 'Show Agents').then((choice) => {
      if (choice) void vscode.commands.executeCommand('paddock.agents.focus');
    });
  }

  private async ask(message: string, actions: string[], job: JobRecord, level: 'info' | 'warning' | 'error'): Promise<void> {
    const show =
      level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    // Titles, details and errors are text Paddock did not write: shown, never obeyed.
    const choice = await show(printable(message), ...actions);
    const command: Record<string, string> = {
      Attach: 'paddock.attach',
      'Show Log': 'paddock.showLog',
      Retry: 'paddock.retry',
      'Retry Cleanup': 'paddock.retryCleanup',
    };
    if (choice && command[choice]) await vscode.commands.executeCommand(command[choice], job.id);
  }
}
