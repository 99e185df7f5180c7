/** The Agents view's badge: how many visible agents need the person. */
import type * as vscode from 'vscode';
import { Disposable } from '../core/common/lifecycle';
import type { AgentsModel } from './model/agentsModel';

export class AgentsBadge extends Disposable {
  constructor(
    private readonly model: AgentsModel,
    private readonly view: vscode.TreeView<unknown>,
  ) {
    super();
    this._register(model.onDidChange(() => this.update()));
  }

  private update(): void {
    const count = this.model.visibleAgents().filter((job) => job.lifecycle.state === 'waiting' || job.cleanup?.needsAttention).length;
    this.view.badge = count ? { value: count, tooltip: `${count} agent${count === 1 ? '' : 's'} need${count === 1 ? 's' : ''} you` } : undefined;
  }
}
