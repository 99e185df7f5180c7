/**
 * Notifications only for what needs the person, each with the actions that
 * resolve it: an agent waits for input, an agent failed, a cleanup needs
 * attention, capacity is blocked by failed cleanups. Shown only in a window
 * whose workspace holds the agent's repository, and once across windows: the
 * first window to claim (job, generation, event) in the store shows it.
 */
import * as vscode from 'vscode';
import { Disposable } from '../core/common/lifecycle';
import { printable } from '../core/common/printable';
import type { CapacityBlockEvent } from '../core/coordinator';
import type { Event } from '../core/common/event';
import type { JobStore } from '../core/store';
import { lifecycleDetail } from '../core/store/leftoverWords';
import { claimNotification, claimSetNotification } from '../core/store/notificationClaim';
import type { JobRecord } from '../core/store/schema';
import { notificationsEnabled } from './config';
import type { AgentsModel, AgentTransition } from './model/agentsModel';
import { stateInWords } from './tree/presentation';

export type NotificationLevel = 'info' | 'warning' | 'error';

/** One notification this window showed (tests observe these). */
export interface ShownNotification {
  readonly jobId: string;
  readonly event: string;
  readonly message: string;
}

interface Pending {
  event: 'waiting' | 'failed' | 'cleanup-attention';
  message: string;
  actions: string[];
  level: NotificationLevel;
}

const ACTION_COMMANDS: Record<string, string> = {
  Attach: 'paddock.attach',
  'Show Log': 'paddock.showLog',
  Retry: 'paddock.retry',
  'Retry Cleanup': 'paddock.retryCleanup',
};

export class Notifier extends Disposable {
  private readonly shownEmitter = this._register(new vscode.EventEmitter<ShownNotification>());
  readonly onDidShow = this.shownEmitter.event;

  constructor(
    private readonly model: AgentsModel,
    private readonly store: JobStore,
    onDidChangeCapacityBlock: Event<CapacityBlockEvent>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(model.onDidTransition((transitions) => void this.onTransitions(transitions)));
    this._register(onDidChangeCapacityBlock((e) => void this.onCapacity(e)));
  }

  private async onTransitions(transitions: AgentTransition[]): Promise<void> {
    for (const { before, after } of transitions) {
      // Only the windows that hold the agent's repository speak for it.
      if (!this.model.workspaceRepos.includes(after.repo)) continue;
      for (const pending of notificationsFor(before, after)) {
        const key = { jobId: after.id, generation: after.lifecycle.generation, event: pending.event };
        if (!(await claimNotification(this.store.jobDir(after.id), key))) continue;
        void this.show(pending, after);
      }
    }
  }

  private async onCapacity(e: CapacityBlockEvent): Promise<void> {
    if (e.blockedBy.length === 0) return;
    const names = e.blockedBy.map((b) => `"${b.title}" (${b.stage ?? 'cleanup'}${b.lastError ? `: ${b.lastError}` : ''})`).join(', ');
    const message = `All ${e.capacity.max} agent slots are taken, ${e.blockedBy.length} by failed cleanups: ${names}.`;
    this.log.warn(message);
    if (!notificationsEnabled('cleanup')) return;
    // Once across windows: the first to claim this set of blocking agents shows it.
    const ids = e.blockedBy.map((b) => b.id);
    if (!(await claimSetNotification((id) => this.store.jobDir(id), 'capacity-blocked', ids))) return;
    this.shownEmitter.fire({ jobId: [...ids].sort()[0], event: 'capacity-blocked', message: printable(message) });
    void vscode.window.showWarningMessage(printable(message), 'Show Agents').then((choice) => {
      if (choice) void vscode.commands.executeCommand('paddock.agents.focus');
    });
  }

  private async show(pending: Pending, job: JobRecord): Promise<void> {
    const show =
      pending.level === 'error' ? vscode.window.showErrorMessage : pending.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    // Titles, details and errors are text Paddock did not write: shown, never obeyed.
    const message = printable(pending.message);
    this.log.info(`notified: ${message}`);
    this.shownEmitter.fire({ jobId: job.id, event: pending.event, message });
    const choice = await show(message, ...pending.actions);
    if (choice && ACTION_COMMANDS[choice]) await vscode.commands.executeCommand(ACTION_COMMANDS[choice], job.id);
  }
}

/** What a change of one agent's record is worth telling the person (the settings decide which kinds). */
function notificationsFor(before: JobRecord, after: JobRecord): Pending[] {
  const out: Pending[] = [];
  const was = before.lifecycle.generation === after.lifecycle.generation ? before.lifecycle.state : undefined;
  const is = after.lifecycle.state;
  if (is === 'waiting' && was !== 'waiting' && notificationsEnabled('waiting')) {
    out.push({ event: 'waiting', message: `Agent "${after.title}" is waiting for you.`, actions: ['Attach'], level: 'info' });
  }
  if ((is === 'failed' || is === 'orphaned') && was !== is && notificationsEnabled('failed')) {
    const words = stateInWords(after);
    const detail = lifecycleDetail(after);
    const why = detail && detail !== words ? `: ${detail}` : '';
    out.push({ event: 'failed', message: `Agent "${after.title}" ${words}${why}.`, actions: ['Attach', 'Show Log', 'Retry'], level: 'error' });
  }
  if (after.cleanup?.needsAttention && !before.cleanup?.needsAttention && notificationsEnabled('cleanup')) {
    out.push({
      event: 'cleanup-attention',
      message: `Cleanup of "${after.title}" needs attention: ${after.cleanup.lastError ?? 'it keeps failing'}.`,
      actions: ['Retry Cleanup', 'Show Log'],
      level: 'warning',
    });
  }
  return out;
}
