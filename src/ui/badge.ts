/** The Agents view's badge: how many visible agents need the person. */
import * as vscode from 'vscode';
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
    this.view.badge = count ? { value: count, tooltip: count === 1 ? vscode.l10n.t('{0} agent needs you', count) : vscode.l10n.t('{0} agents need you', count) } : undefined;
  }
}
