/**
 * The `paddock.agents` view. Nodes are cached by id; a job change re-reads that
 * one record and refreshes that one node (or its parent when the order or the
 * grouping changes). Relative times tick from the cached records without
 * touching the store. A periodic full reload is the safety net.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, disposableInterval } from '../../core/common/lifecycle';
import type { Coordinator } from '../../core/coordinator';
import { changedFiles } from '../../core/git';
import type { JobEntry, JobStore } from '../../core/store';
import type { JobRecord } from '../../core/store/schema';
import { AgentNode, EvidenceNode, FileNode, MessageNode, RepoNode, TreeNode, UnreadableNode } from './nodes';
import { lookOf, tooltipMarkdown } from './presentation';
import { printable } from '../../core/common/printable';

const TICK_MS = 10_000;
const FULL_RELOAD_MS = 60_000;

export class AgentsTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<TreeNode | TreeNode[] | undefined>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly countsEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires when the set of agents or their states changed (badge, status bar). */
  readonly onDidChangeAgents = this.countsEmitter.event;
  private readonly stateEmitter = this._register(new vscode.EventEmitter<{ before: JobRecord | undefined; after: JobRecord }>());
  /** One record changed: before (as last seen) and after. Drives notifications. */
  readonly onDidChangeAgentState = this.stateEmitter.event;

  private readonly agents = new Map<string, AgentNode>();
  private readonly unreadable = new Map<string, UnreadableNode>();
  private readonly repoNodes = new Map<string, RepoNode>();
  /** Repositories of the workspace; empty: show every agent in the store. */
  private workspaceRepos: string[] = [];
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly store: JobStore,
    coordinator: Coordinator,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(coordinator.onDidChangeJob((id) => void this.refreshJob(id)));
    this._register(disposableInterval(() => this.tick(), TICK_MS));
    this._register(disposableInterval(() => void this.reload(), FULL_RELOAD_MS));
  }

  setWorkspaceRepos(repos: string[]): void {
    this.workspaceRepos = [...new Set(repos)];
    this.changeEmitter.fire(undefined);
  }

  /** Resolves once the first load has finished (tests and commands wait on it). */
  ready(): Promise<void> {
    this.loaded ??= this.reload();
    return this.loaded;
  }

  /** Re-reads every record (after Refresh, and periodically as a safety net). */
  async reload(): Promise<void> {
    let entries: JobEntry[];
    try {
      entries = await this.store.list();
    } catch (err) {
      this.log.error(`Cannot list agents: ${(err as Error).message}`);
      return;
    }
    const seen = new Set<string>();
    for (const entry of entries) {
      seen.add(entry.id);
      this.apply(entry, false);
    }
    for (const id of [...this.agents.keys()]) if (!seen.has(id)) this.agents.delete(id);
    for (const id of [...this.unreadable.keys()]) if (!seen.has(id)) this.unreadable.delete(id);
    this.changeEmitter.fire(undefined);
    this.countsEmitter.fire();
  }

  /** One job changed: re-read it and refresh its node only (its parent when order or membership changes). */
  async refreshJob(id: string): Promise<void> {
    await this.ready();
    let entry: JobEntry;
    try {
      entry = await this.store.tryRead(id);
    } catch {
      return; // an id that is not a job (e.g. a stray folder): nothing to show
    }
    const structural = this.apply(entry, true);
    if (structural) this.changeEmitter.fire(undefined);
    this.countsEmitter.fire();
  }

  /** Updates the cache; returns true when the tree's shape or order changed. */
  private apply(entry: JobEntry, fireItem: boolean): boolean {
    if (!entry.ok) {
      const existing = this.unreadable.get(entry.id);
      if (existing) {
        existing.reason = entry.reason;
        if (fireItem) this.changeEmitter.fire(existing);
        return false;
      }
      this.agents.delete(entry.id);
      this.unreadable.set(entry.id, new UnreadableNode(entry.id, entry.reason));
      return true;
    }
    const job = entry.job;
    this.unreadable.delete(entry.id);
    const node = this.agents.get(job.id);
    if (!node) {
      this.agents.set(job.id, new AgentNode(job));
      this.stateEmitter.fire({ before: undefined, after: job });
      return true;
    }
    const before = node.job;
    const now = Date.now();
    const reordered = lookOf(before, now).rank !== lookOf(job, now).rank;
    node.job = job;
    if (before.lifecycle.state !== job.lifecycle.state || before.cleanup?.phase !== job.cleanup?.phase ||
      before.cleanup?.needsAttention !== job.cleanup?.needsAttention) {
      this.stateEmitter.fire({ before, after: job });
    }
    if (!reordered && fireItem) this.changeEmitter.fire(node);
    return reordered;
  }

  /** Re-renders nodes whose text depends on the clock (elapsed time, "retry in 8s"). */
  private tick(): void {
    const live = [...this.agents.values()].filter((n) => {
      const s = n.job.lifecycle.state;
      return s === 'running' || s === 'waiting' || s === 'queued' || s === 'starting' || n.job.cleanup?.phase === 'incomplete';
    });
    if (live.length) this.changeEmitter.fire(live);
  }

  /** All cached agents visible in this window (for the badge, status bar and bulk commands). */
  visibleAgents(): AgentNode[] {
    return [...this.agents.values()].filter((n) => this.isVisible(n.job));
  }

  agent(id: string): AgentNode | undefined {
    return this.agents.get(id);
  }

  private isVisible(job: JobRecord): boolean {
    return this.workspaceRepos.length === 0 || this.workspaceRepos.includes(job.repo);
  }

  private sorted(nodes: AgentNode[]): AgentNode[] {
    const now = Date.now();
    return nodes.sort((a, b) => {
      const r = lookOf(a.job, now).rank - lookOf(b.job, now).rank;
      return r !== 0 ? r : Date.parse(b.job.createdAt) - Date.parse(a.job.createdAt);
    });
  }

  async getChildren(element?: TreeNode): Promise<TreeNode[]> {
    if (!element) {
      await this.ready();
      const agents = this.visibleAgents();
      const unreadable = [...this.unreadable.values()];
      const repos = [...new Set(agents.map((a) => a.job.repo))];
      if (this.workspaceRepos.length > 1 && repos.length > 0) {
        return [...repos.sort().map((r) => this.repoNode(r)), ...unreadable];
      }
      return [...this.sorted(agents), ...unreadable];
    }
    if (element instanceof RepoNode) return this.sorted(this.visibleAgents().filter((a) => a.job.repo === element.repo));
    if (element instanceof AgentNode) return this.agentChildren(element);
    return [];
  }

  private repoNode(repo: string): RepoNode {
    let node = this.repoNodes.get(repo);
    if (!node) {
      node = new RepoNode(repo);
      this.repoNodes.set(repo, node);
    }
    return node;
  }

  private async agentChildren(node: AgentNode): Promise<TreeNode[]> {
    const job = node.job;
    const children: TreeNode[] = [];
    if (job.evidence?.snapshotRef) children.push(new EvidenceNode(node, 'snapshot'));
    if (job.evidence?.patch) children.push(new EvidenceNode(node, 'patch'));
    if (job.worktree && job.baseSha && job.cleanup?.phase !== 'complete') {
      try {
        const files = await changedFiles(job.worktree, job.baseSha);
        children.push(...files.map((f) => new FileNode(node, f)));
        if (files.length === 0) children.push(new MessageNode(node.id, 'No changes yet'));
      } catch (err) {
        children.push(new MessageNode(node.id, `Changes unavailable: ${(err as Error).message}`));
      }
    }
    return children;
  }

  getParent(element: TreeNode): TreeNode | undefined {
    if (element instanceof FileNode || element instanceof EvidenceNode) return element.agent;
    if (element instanceof AgentNode && this.workspaceRepos.length > 1) return this.repoNode(element.job.repo);
    return undefined;
  }

  getTreeItem(element: TreeNode): vscode.TreeItem {
    if (element instanceof AgentNode) return this.agentItem(element);
    if (element instanceof RepoNode) {
      const item = new vscode.TreeItem(path.basename(element.repo), vscode.TreeItemCollapsibleState.Expanded);
      item.id = element.id;
      item.description = element.repo;
      item.iconPath = new vscode.ThemeIcon('repo');
      item.contextValue = 'repo';
      return item;
    }
    if (element instanceof UnreadableNode) {
      const item = new vscode.TreeItem(`Unreadable agent ${element.jobId}`, vscode.TreeItemCollapsibleState.None);
      item.id = element.id;
      item.description = printable(element.reason);
      item.tooltip = new vscode.MarkdownString().appendText(`Agent ${element.jobId} cannot be read: ${printable(element.reason)}. It is left untouched on disk.`);
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
      item.contextValue = 'unreadable';
      return item;
    }
    if (element instanceof FileNode) return this.fileItem(element);
    if (element instanceof EvidenceNode) return this.evidenceItem(element);
    const item = new vscode.TreeItem(element.text, vscode.TreeItemCollapsibleState.None);
    item.id = element.id;
    item.iconPath = new vscode.ThemeIcon('info');
    return item;
  }

  private agentItem(node: AgentNode): vscode.TreeItem {
    const job = node.job;
    const now = Date.now();
    const look = lookOf(job, now);
    const hasChildren = Boolean(job.worktree || job.evidence);
    const item = new vscode.TreeItem(printable(job.title), hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = look.description;
    item.iconPath = new vscode.ThemeIcon(look.iconId, look.colorId ? new vscode.ThemeColor(look.colorId) : undefined);
    item.contextValue = look.contextValue;
    const tooltip = new vscode.MarkdownString(tooltipMarkdown(job, now));
    tooltip.supportThemeIcons = true;
    item.tooltip = tooltip;
    item.accessibilityInformation = { label: `${printable(job.title)}, ${look.description}` };
    return item;
  }

  private fileItem(node: FileNode): vscode.TreeItem {
    const { file } = node;
    const worktree = node.agent.job.worktree!;
    const uri = vscode.Uri.file(path.join(worktree, file.path));
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.label = path.basename(file.path);
    const dir = path.dirname(file.path);
    item.description = `${dir === '.' ? '' : `${dir} · `}${STATUS_WORDS[file.status] ?? file.status}`;
    item.iconPath = vscode.ThemeIcon.File;
    item.contextValue = 'file';
    item.command = { command: 'paddock.openFileDiff', title: 'Open Changes', arguments: [node] };
    return item;
  }

  private evidenceItem(node: EvidenceNode): vscode.TreeItem {
    const job = node.agent.job;
    if (node.what === 'snapshot') {
      const item = new vscode.TreeItem(`Snapshot ${job.evidence!.snapshotRef}`, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.description = job.evidence!.headSha ? `on ${job.evidence!.headSha.slice(0, 8)}` : undefined;
      item.tooltip = new vscode.MarkdownString().appendText(`The worktree's full state before cleanup. Restore with: git checkout ${job.evidence!.snapshotRef}`);
      item.iconPath = new vscode.ThemeIcon('git-commit');
      item.contextValue = 'evidence:snapshot';
      return item;
    }
    const item = new vscode.TreeItem('Patch', vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = job.evidence!.patch ?? undefined;
    item.iconPath = new vscode.ThemeIcon('file-code');
    item.contextValue = 'evidence:patch';
    item.command = { command: 'vscode.open', title: 'Open Patch', arguments: [vscode.Uri.file(job.evidence!.patch!)] };
    return item;
  }
}

const STATUS_WORDS: Record<string, string> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type changed',
  '?': 'untracked',
};
