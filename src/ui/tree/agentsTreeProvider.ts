/**
 * The `paddock.agents` view: a view of the agents model, not a model itself.
 * Nodes are cached by id and render themselves; a model update refreshes the
 * changed nodes only, and their parent only when its rows moved (the root when
 * agents came, went or changed grouping). A row is never re-rendered from the
 * root for a change that leaves it where it is: VS Code rebuilds every row then,
 * and an inline action clicked meanwhile can reach its command without its row.
 * Relative times tick from the cached records without touching the store.
 */
import * as vscode from 'vscode';
import { Disposable, disposableInterval } from '../../core/common/lifecycle';
import type { JobRecord } from '../../core/store/schema';
import type { AgentsChange, AgentsModel, UnreadableAgent } from '../model/agentsModel';
import type { AgentStandings } from '../model/agentStandings';
import type { AgentSuspensions } from '../model/agentSuspensions';
import { showCleanedForHours, showUsageInTree } from '../config';
import { hiddenAsCleaned } from './cleanedFilter';
import { AgentNode, GroupNode, RepoNode, TreeContext, TreeNode, UnreadableNode } from './nodes';
import { groupLookOf, lookOf } from './presentation';

/** Context key: the view shows every cleaned agent ("Show Cleaned Agents" is on). */
export const SHOWING_CLEANED_KEY = 'paddock.showingCleaned';

const TICK_MS = 10_000;

export class AgentsTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode>, TreeContext {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<TreeNode | TreeNode[] | undefined>());
  readonly onDidChangeTreeData = this.changeEmitter.event;

  private readonly agentNodes = new Map<string, AgentNode>();
  private readonly unreadableNodes = new Map<string, UnreadableNode>();
  private readonly repoNodes = new Map<string, RepoNode>();
  private readonly groupNodes = new Map<string, GroupNode>();

  private showAllCleaned = false;
  /** `paddock.tree.showUsage`, read once here rather than by every row at every render; rerender() reads it again. */
  private showUsage = showUsageInTree();
  /** How many agents the cleaned filter left out at the last render (a change re-renders the root). */
  private hiddenCount = 0;
  /** The ids of each parent's rows at its last render, in order ('' is the root when ungrouped, else a repository). */
  private readonly renderedRows = new Map<string, string>();

  constructor(
    private readonly model: AgentsModel,
    private readonly standings?: AgentStandings,
    private readonly suspensions?: AgentSuspensions,
  ) {
    super();
    this._register(model.onDidChange((change) => this.onModelChange(change)));
    if (standings) this._register(standings.onDidChange((ids) => this.refreshAgents(ids)));
    if (suspensions) this._register(suspensions.onDidChange((ids) => this.refreshAgents(ids)));
    this._register(disposableInterval(() => this.tick(), TICK_MS));
    void vscode.commands.executeCommand('setContext', SHOWING_CLEANED_KEY, false);
  }

  /** "Show Cleaned Agents" / "Hide Cleaned Agents": every cleaned agent, or only those cleaned recently. */
  setShowAllCleaned(show: boolean): void {
    this.showAllCleaned = show;
    void vscode.commands.executeCommand('setContext', SHOWING_CLEANED_KEY, show);
    this.changeEmitter.fire(undefined);
  }

  /** Re-renders from the root (a setting changed what is shown or how agents look). */
  rerender(): void {
    this.showUsage = showUsageInTree();
    this.changeEmitter.fire(undefined);
  }

  get showingAllCleaned(): boolean {
    return this.showAllCleaned;
  }

  /** The cached node of a visible agent. */
  agent(id: string): AgentNode | undefined {
    const job = this.model.get(id);
    return job && this.model.isVisible(job) ? this.agentNode(job) : undefined;
  }

  async getChildren(element?: TreeNode): Promise<TreeNode[]> {
    if (element) return element.children(this);
    await this.model.ready();
    const unreadable = this.model.unreadable().map((agent) => this.unreadableNode(agent));
    const agents = this.agentsOf(undefined);
    const repos = [...new Set(this.model.visibleAgents().map((job) => job.repo))];
    if (this.grouped() && repos.length > 0) return [...repos.sort().map((r) => this.repoNode(r)), ...unreadable];
    return [...agents, ...unreadable];
  }

  getParent(element: TreeNode): TreeNode | undefined {
    return element.parent(this);
  }

  getTreeItem(element: TreeNode): vscode.TreeItem {
    return element.treeItem();
  }

  /**
   * VS Code calls this when the person hovers a row whose item has no tooltip:
   * the tooltip is built then, not for each of hundreds of rows at every render.
   */
  resolveTreeItem(item: vscode.TreeItem, element: TreeNode): vscode.TreeItem {
    item.tooltip ??= element.tooltip();
    return item;
  }

  /** The cached node of a visible group of attempts. */
  group(groupId: string): GroupNode | undefined {
    const members = this.members(groupId);
    return members.length ? this.groupNode(groupId, members) : undefined;
  }

  /** A parent's rows as it renders them; remembers their order to tell a moved row from a changed one. */
  agentsOf(repo: string | undefined): (AgentNode | GroupNode)[] {
    const rows = this.rowsOf(repo);
    this.renderedRows.set(repo ?? '', rowOrder(rows));
    return rows;
  }

  private rowsOf(repo: string | undefined): (AgentNode | GroupNode)[] {
    const jobs = this.shownAgents().filter((job) => repo === undefined || job.repo === repo);
    const now = Date.now();
    const rows: { node: AgentNode | GroupNode; rank: number; createdAt: number }[] = [];
    const groups = new Map<string, JobRecord[]>();
    for (const job of jobs) {
      if (job.group) {
        const list = groups.get(job.group.id) ?? [];
        list.push(job);
        groups.set(job.group.id, list);
      } else {
        rows.push({ node: this.agentNode(job), rank: lookOf(job, now, { suspension: this.suspensions?.get(job.id) }).rank, createdAt: Date.parse(job.createdAt) });
      }
    }
    for (const [id, members] of groups) {
      const ordered = byIndex(members);
      rows.push({ node: this.groupNode(id, ordered), rank: groupLookOf(ordered, now).rank, createdAt: Math.max(...ordered.map((j) => Date.parse(j.createdAt))) });
    }
    return rows.sort((a, b) => a.rank - b.rank || b.createdAt - a.createdAt).map((r) => r.node);
  }

  /** Visible agents minus cleaned ones past `paddock.showCleanedFor` (unless all are asked for). */
  private shownAgents(): JobRecord[] {
    const now = Date.now();
    const hours = showCleanedForHours();
    const all = this.model.visibleAgents();
    const shown = all.filter((job) => !hiddenAsCleaned(job, now, hours, this.showAllCleaned));
    this.hiddenCount = all.length - shown.length;
    return shown;
  }

  private refreshAgents(ids: readonly string[]): void {
    const nodes = ids.map((id) => this.agent(id)).filter((n): n is AgentNode => n !== undefined);
    if (nodes.length) this.changeEmitter.fire(nodes);
  }

  attemptsOf(groupId: string): AgentNode[] {
    return this.members(groupId).map((job) => this.agentNode(job));
  }

  groupOf(agent: AgentNode): GroupNode | RepoNode | undefined {
    if (agent.job.group) return this.group(agent.job.group.id);
    return this.grouped() ? this.repoNode(agent.job.repo) : undefined;
  }

  repoOf(group: GroupNode): RepoNode | undefined {
    const repo = group.members[0]?.repo;
    return this.grouped() && repo ? this.repoNode(repo) : undefined;
  }

  private members(groupId: string): JobRecord[] {
    return byIndex(this.model.visibleAgents().filter((job) => job.group?.id === groupId));
  }

  private grouped(): boolean {
    return this.model.workspaceRepos.length > 1;
  }

  private onModelChange(change: AgentsChange): void {
    this.forget();
    if (change.structural) {
      this.changeEmitter.fire(undefined);
      return;
    }
    const moved = this.parentsWithMovedRows(change.ids);
    if (moved === 'root') {
      this.changeEmitter.fire(undefined);
      return;
    }
    const nodes: TreeNode[] = [...moved];
    for (const id of change.ids) {
      const node = this.agent(id);
      if (node) nodes.push(node);
      // A group's words count its attempts' states: it re-renders with them.
      const group = node?.job.group ? this.group(node.job.group.id) : undefined;
      if (group && !nodes.includes(group)) nodes.push(group);
      const broken = this.unreadableNodes.get(id);
      if (broken) nodes.push(broken);
    }
    if (nodes.length) this.changeEmitter.fire(nodes);
  }

  /**
   * The parents whose rows are no longer in the order last rendered (a state
   * change moves an agent by rank, and a group by its attempts'): 'root' when
   * it is the root's. A parent not rendered yet has nothing to move.
   */
  private parentsWithMovedRows(ids: readonly string[]): RepoNode[] | 'root' {
    const grouped = this.grouped();
    const keys = new Set<string>();
    for (const id of ids) {
      const job = this.model.get(id);
      if (job && this.model.isVisible(job)) keys.add(grouped ? job.repo : '');
    }
    const moved: RepoNode[] = [];
    for (const key of keys) {
      const rendered = this.renderedRows.get(key);
      if (rendered === undefined || rendered === rowOrder(this.rowsOf(grouped ? key : undefined))) continue;
      if (!grouped) return 'root';
      moved.push(this.repoNode(key));
    }
    return moved;
  }

  /** Drops cached nodes of agents, groups and repositories the model no longer has. */
  private forget(): void {
    for (const id of this.agentNodes.keys()) if (!this.model.get(id)) this.agentNodes.delete(id);
    const broken = new Set(this.model.unreadable().map((u) => u.id));
    for (const id of this.unreadableNodes.keys()) if (!broken.has(id)) this.unreadableNodes.delete(id);
    const groups = new Set(this.model.visibleAgents().flatMap((job) => (job.group ? [job.group.id] : [])));
    for (const id of this.groupNodes.keys()) if (!groups.has(id)) this.groupNodes.delete(id);
    // A repository whose last agent left: its node and its remembered row order go too.
    const repos = new Set(this.model.visibleAgents().map((job) => job.repo));
    for (const repo of this.repoNodes.keys()) if (!repos.has(repo)) this.repoNodes.delete(repo);
    for (const key of this.renderedRows.keys()) if (key !== '' && !repos.has(key)) this.renderedRows.delete(key);
  }

  private groupNode(groupId: string, members: JobRecord[]): GroupNode {
    let node = this.groupNodes.get(groupId);
    if (!node) {
      node = new GroupNode(groupId, members);
      this.groupNodes.set(groupId, node);
    }
    node.members = members;
    return node;
  }

  private agentNode(job: JobRecord): AgentNode {
    let node = this.agentNodes.get(job.id);
    if (!node) {
      node = new AgentNode(job, (id) => this.standings?.get(id), () => this.showUsage, (id) => this.suspensions?.get(id));
      this.agentNodes.set(job.id, node);
    }
    node.job = job;
    return node;
  }

  private unreadableNode(agent: UnreadableAgent): UnreadableNode {
    let node = this.unreadableNodes.get(agent.id);
    if (!node) {
      node = new UnreadableNode(agent);
      this.unreadableNodes.set(agent.id, node);
    }
    node.agent = agent;
    return node;
  }

  private repoNode(repo: string): RepoNode {
    let node = this.repoNodes.get(repo);
    if (!node) {
      node = new RepoNode(repo);
      this.repoNodes.set(repo, node);
    }
    return node;
  }

  /** Re-renders nodes whose text depends on the clock (elapsed time, "retry in 8s"). */
  private tick(): void {
    // A cleaned agent passing its showCleanedFor time leaves the tree without any store change.
    const hiddenBefore = this.hiddenCount;
    this.shownAgents();
    if (this.hiddenCount !== hiddenBefore) {
      this.changeEmitter.fire(undefined);
      return;
    }
    const live = this.model.visibleAgents().filter((job) => {
      const s = job.lifecycle.state;
      return s === 'running' || s === 'waiting' || s === 'queued' || s === 'starting' || job.cleanup?.phase === 'incomplete';
    });
    if (live.length) this.changeEmitter.fire(live.map((job) => this.agentNode(job)));
  }
}

function rowOrder(rows: readonly TreeNode[]): string {
  return rows.map((row) => row.id).join('\n');
}

function byIndex(jobs: JobRecord[]): JobRecord[] {
  return jobs.sort((a, b) => (a.group?.index ?? 0) - (b.group?.index ?? 0) || a.id.localeCompare(b.id));
}
