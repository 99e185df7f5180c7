/** "$(hubot) 3 running · 1 waiting" in the status bar; a click focuses the Agents view. */
import * as vscode from 'vscode';
import { Disposable } from '../core/common/lifecycle';
import { currentUsage } from '../core/usage/currentUsage';
import { formatBytes, formatCount, formatCpu, totalUsage } from '../core/usage/usageText';
import type { AgentsModel } from './model/agentsModel';

export class AgentsStatusBar extends Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(private readonly model: AgentsModel) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('paddock.status', vscode.StatusBarAlignment.Left, 50));
    this.item.name = 'Paddock Agents';
    this.item.command = 'paddock.agents.focus';
    this._register(model.onDidChange(() => this.update()));
    this.update();
  }

  /** The text shown, for tests. */
  get text(): string {
    return this.item.text;
  }

  /** The tooltip shown, for tests. */
  get tooltip(): string {
    return typeof this.item.tooltip === 'string' ? this.item.tooltip : (this.item.tooltip?.value ?? '');
  }

  /** "All agents: 85% CPU · 412 MB memory · 1.2 GB disk · 45k tokens", from the last sampled figures. */
  private totals(): string | undefined {
    const t = totalUsage(this.model.visibleAgents().map(currentUsage));
    if (t.agents === 0) return undefined;
    const parts = [
      vscode.l10n.t('{0} CPU', formatCpu(t.cpuPercent)),
      vscode.l10n.t('{0} memory', formatBytes(t.rssBytes)),
      vscode.l10n.t('{0} disk', formatBytes(t.diskBytes)),
    ];
    if (t.tokens) parts.push(vscode.l10n.t('{0} tokens', formatCount(t.tokens)));
    return vscode.l10n.t('All agents: {0}', parts.join(' · '));
  }

  private update(): void {
    const counts = { running: 0, waiting: 0, queued: 0, attention: 0 };
    for (const job of this.model.visibleAgents()) {
      const s = job.lifecycle.state;
      if (s === 'running' || s === 'starting') counts.running++;
      else if (s === 'waiting') counts.waiting++;
      else if (s === 'queued') counts.queued++;
      if (job.cleanup?.needsAttention) counts.attention++;
    }
    const parts: string[] = [];
    if (counts.running) parts.push(vscode.l10n.t('{0} running', counts.running));
    if (counts.waiting) parts.push(vscode.l10n.t('{0} waiting', counts.waiting));
    if (counts.queued) parts.push(vscode.l10n.t('{0} queued', counts.queued));
    if (counts.attention) parts.push(counts.attention === 1 ? vscode.l10n.t('{0} needs attention', counts.attention) : vscode.l10n.t('{0} need attention', counts.attention));
    if (parts.length === 0) {
      this.item.hide();
      return;
    }
    this.item.text = `$(hubot) ${parts.join(' · ')}`;
    const totals = this.totals();
    const hint = vscode.l10n.t('Paddock agents — click to show them');
    this.item.tooltip = totals ? `${hint}\n${totals}` : hint;
    this.item.backgroundColor = counts.waiting || counts.attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}
