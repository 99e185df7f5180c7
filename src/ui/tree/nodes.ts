/**
 * Tree node objects. Each renders itself (`treeItem`) and knows its children;
 * the provider only caches them by id, so VS Code keeps selection and
 * expansion, and a change refreshes only the node that changed.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { changedFiles, type ChangedFile, type Standing } from '../../core/git';
import type { JobRecord } from '../../core/store/schema';
import type { Suspension } from '../../core/store/suspension';
import { canForgetUnreadable, canStopUnreadable } from '../../core/operations/rules';
import type { UnreadableAgent } from '../model/agentsModel';
import { showUsageInTree } from '../config';
import { attemptLabel, groupLookOf, lookOf, tooltipMarkdown } from './presentation';

/** What a node needs from the tree to list its children. */
export interface TreeContext {
  /** Visible agents of one repository (or all), in display order: the attempts of a group as one group node. */
  agentsOf(repo: string | undefined): (AgentNode | GroupNode)[];
  /** The node an agent is shown under: its group of attempts, or its repository when the view groups by repository. */
  groupOf(agent: AgentNode): GroupNode | RepoNode | undefined;
  /** The visible attempts of a group, in attempt order. */
  attemptsOf(groupId: string): AgentNode[];
  /** The repository node a group is shown under, when the view groups by repository. */
  repoOf(group: GroupNode): RepoNode | undefined;
}

abstract class Node {
  abstract readonly kind: string;
  abstract readonly id: string;
  abstract treeItem(): vscode.TreeItem;
  /** Built when the person hovers the row (the provider's resolveTreeItem), never for every row of a render. */
  tooltip(): vscode.MarkdownString | undefined {
    return undefined;
  }
  children(_ctx: TreeContext): Promise<TreeNode[]> | TreeNode[] {
    return [];
  }
  parent(_ctx: TreeContext): TreeNode | undefined {
    return undefined;
  }
}

export class RepoNode extends Node {
  readonly kind = 'repo';
  constructor(readonly repo: string) {
    super();
  }
  get id(): string {
    return `repo:${this.repo}`;
  }
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(path.basename(this.repo), vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.description = this.repo;
    item.iconPath = new vscode.ThemeIcon('repo');
    item.contextValue = 'repo';
    return item;
  }
  override children(ctx: TreeContext): TreeNode[] {
    return ctx.agentsOf(this.repo);
  }
}

/** Several attempts at one task: "Fix the date test · 3 attempts · 2 done, 1 running", the attempts as children. */
export class GroupNode extends Node {
  readonly kind = 'group';
  constructor(
    readonly groupId: string,
    /** The visible attempts (in attempt order), set by the tree before each render. */
    public members: JobRecord[],
  ) {
    super();
  }
  get id(): string {
    return `group:${this.groupId}`;
  }
  treeItem(): vscode.TreeItem {
    const look = groupLookOf(this.members);
    const item = new vscode.TreeItem(printable(look.title), vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.description = look.description;
    item.iconPath = new vscode.ThemeIcon('layers', look.colorId ? new vscode.ThemeColor(look.colorId) : undefined);
    item.contextValue = look.contextValue;
    item.accessibilityInformation = { label: `${printable(look.title)}, ${look.description}` };
    return item;
  }
  override tooltip(): vscode.MarkdownString {
    const look = groupLookOf(this.members);
    return new vscode.MarkdownString().appendText(`${look.title} — ${look.description}`);
  }
  override children(ctx: TreeContext): TreeNode[] {
    return ctx.attemptsOf(this.groupId);
  }
  override parent(ctx: TreeContext): TreeNode | undefined {
    return ctx.repoOf(this);
  }
}

export class AgentNode extends Node {
  readonly kind = 'agent';
  constructor(
    public job: JobRecord,
    /** The last computed standing of the agent's work (a cache read: rendering never runs git for it). */
    private readonly standingOf: (id: string) => Standing | undefined = () => undefined,
    /** `paddock.tree.showUsage` as the tree last read it: a settings read per row was half of 500 rows' render time (bench treeScale). */
    private readonly showUsage: () => boolean = showUsageInTree,
    /** Its worker or the agent stopped (SIGSTOP), as last read (a cache read: rendering never looks at processes). */
    private readonly suspensionOf: (id: string) => Suspension | undefined = () => undefined,
  ) {
    super();
  }
  get id(): string {
    return `agent:${this.job.id}`;
  }
  treeItem(): vscode.TreeItem {
    const job = this.job;
    const now = Date.now();
    const standing = this.standingOf(job.id);
    const look = lookOf(job, now, { showUsage: this.showUsage(), standing, suspension: this.suspensionOf(job.id) });
    const hasChildren = Boolean(job.worktree || job.evidence);
    const label = job.group ? attemptLabel(job) : printable(job.title);
    const item = new vscode.TreeItem(label, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = look.description;
    item.iconPath = new vscode.ThemeIcon(look.iconId, look.colorId ? new vscode.ThemeColor(look.colorId) : undefined);
    item.contextValue = look.contextValue;
    item.accessibilityInformation = { label: `${label}, ${look.description}` };
    return item;
  }
  /** The full record in a table: the costliest part of a row (dates in local time), so built on hover only. */
  override tooltip(): vscode.MarkdownString {
    const tooltip = new vscode.MarkdownString(tooltipMarkdown(this.job, Date.now(), this.standingOf(this.job.id), this.suspensionOf(this.job.id)));
    tooltip.supportThemeIcons = true;
    return tooltip;
  }
  override async children(): Promise<TreeNode[]> {
    const job = this.job;
    const children: TreeNode[] = [];
    if (job.evidence?.snapshotRef) children.push(new EvidenceNode(this, 'snapshot'));
    if (job.evidence?.patch) children.push(new EvidenceNode(this, 'patch'));
    if (job.worktree && job.baseSha && job.cleanup?.phase !== 'complete') {
      try {
        const files = await changedFiles(job.repo, job.worktree, job.baseSha, job.branch);
        children.push(...files.map((f) => new FileNode(this, f)));
        if (files.length === 0) children.push(new MessageNode(this.id, vscode.l10n.t('No changes yet')));
      } catch (err) {
        children.push(new MessageNode(this.id, vscode.l10n.t('Changes unavailable: {0}', (err as Error).message)));
      }
    }
    return children;
  }
  override parent(ctx: TreeContext): TreeNode | undefined {
    return ctx.groupOf(this);
  }
}

export class UnreadableNode extends Node {
  readonly kind = 'unreadable';
  constructor(public agent: UnreadableAgent) {
    super();
  }
  get jobId(): string {
    return this.agent.id;
  }
  get reason(): string {
    return this.agent.reason;
  }
  get id(): string {
    return `unreadable:${this.jobId}`;
  }
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Unreadable agent {0}', this.jobId), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = printable(this.reason);
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
    // `unreadable:<caps>`, as agent rows compose theirs: Stop while its worker still runs, then Remove from List.
    const caps = [canStopUnreadable(this.agent) && 'stop', canForgetUnreadable(this.agent) && 'forget'].filter(Boolean);
    item.contextValue = `unreadable:${caps.join('.')}`;
    return item;
  }
  override tooltip(): vscode.MarkdownString {
    return new vscode.MarkdownString().appendText(vscode.l10n.t('Agent {0} cannot be read: {1}. It is left untouched on disk; Remove from List keeps its whole folder in the store\'s kept/ folder.', this.jobId, printable(this.reason)));
  }
}

export class FileNode extends Node {
  readonly kind = 'file';
  constructor(
    readonly agent: AgentNode,
    readonly file: ChangedFile,
  ) {
    super();
  }
  get id(): string {
    return `file:${this.agent.job.id}:${this.file.path}`;
  }
  treeItem(): vscode.TreeItem {
    const { file } = this;
    const uri = vscode.Uri.file(path.join(this.agent.job.worktree!, file.path));
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.label = path.basename(file.path);
    const dir = path.dirname(file.path);
    item.description = `${dir === '.' ? '' : `${dir} · `}${statusWord(file.status)}`;
    item.iconPath = vscode.ThemeIcon.File;
    item.contextValue = 'file';
    item.command = { command: 'paddock.openFileDiff', title: vscode.l10n.t('Open Changes'), arguments: [this] };
    return item;
  }
  override parent(): TreeNode {
    return this.agent;
  }
}

export class EvidenceNode extends Node {
  readonly kind = 'evidence';
  constructor(
    readonly agent: AgentNode,
    readonly what: 'snapshot' | 'patch',
  ) {
    super();
  }
  get id(): string {
    return `evidence:${this.agent.job.id}:${this.what}`;
  }
  treeItem(): vscode.TreeItem {
    const evidence = this.agent.job.evidence!;
    if (this.what === 'snapshot') {
      const item = new vscode.TreeItem(vscode.l10n.t('Snapshot {0}', String(evidence.snapshotRef)), vscode.TreeItemCollapsibleState.None);
      item.id = this.id;
      item.description = evidence.headSha ? vscode.l10n.t('on {0}', evidence.headSha.slice(0, 8)) : undefined;
      item.iconPath = new vscode.ThemeIcon('git-commit');
      item.contextValue = 'evidence:snapshot';
      return item;
    }
    const item = new vscode.TreeItem(vscode.l10n.t('Patch'), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = evidence.patch ?? undefined;
    item.iconPath = new vscode.ThemeIcon('file-code');
    item.contextValue = 'evidence:patch';
    item.command = { command: 'vscode.open', title: vscode.l10n.t('Open Patch'), arguments: [vscode.Uri.file(evidence.patch!)] };
    return item;
  }
  override tooltip(): vscode.MarkdownString | undefined {
    if (this.what !== 'snapshot') return undefined;
    return new vscode.MarkdownString().appendText(vscode.l10n.t('The worktree\'s full state before cleanup. Restore with: git checkout {0}', String(this.agent.job.evidence!.snapshotRef)));
  }
  override parent(): TreeNode {
    return this.agent;
  }
}

export class MessageNode extends Node {
  readonly kind = 'message';
  constructor(
    readonly parentId: string,
    readonly text: string,
  ) {
    super();
  }
  get id(): string {
    return `message:${this.parentId}:${this.text}`;
  }
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('info');
    return item;
  }
}

export type TreeNode = RepoNode | GroupNode | AgentNode | UnreadableNode | FileNode | EvidenceNode | MessageNode;

/** A changed file's git status in words. */
function statusWord(status: string): string {
  switch (status) {
    case 'A':
      return vscode.l10n.t('added');
    case 'M':
      return vscode.l10n.t('modified');
    case 'D':
      return vscode.l10n.t('deleted');
    case 'R':
      return vscode.l10n.t('renamed');
    case 'C':
      return vscode.l10n.t('copied');
    case 'T':
      return vscode.l10n.t('type changed');
    case '?':
      return vscode.l10n.t('untracked');
    default:
      return status;
  }
}

/** Commands invoked from the tree receive the clicked node and, with multi-select, all selected nodes. */
export function agentsFrom(node: unknown, selection: unknown): AgentNode[] {
  const all = Array.isArray(selection) && selection.length ? selection : node ? [node] : [];
  return all.filter((n): n is AgentNode => n instanceof AgentNode);
}
