/**
 * Tree node objects. Each is created once per thing it shows and kept (the
 * provider caches them by id), so VS Code keeps selection and expansion, and a
 * change refreshes only the node that changed.
 */
import type { ChangedFile } from '../../core/git';
import type { JobRecord } from '../../core/store/schema';

export class RepoNode {
  readonly kind = 'repo';
  constructor(readonly repo: string) {}
  get id(): string {
    return `repo:${this.repo}`;
  }
}

export class AgentNode {
  readonly kind = 'agent';
  constructor(public job: JobRecord) {}
  get id(): string {
    return `agent:${this.job.id}`;
  }
}

export class UnreadableNode {
  readonly kind = 'unreadable';
  constructor(
    readonly jobId: string,
    public reason: string,
  ) {}
  get id(): string {
    return `unreadable:${this.jobId}`;
  }
}

export class FileNode {
  readonly kind = 'file';
  constructor(
    readonly agent: AgentNode,
    readonly file: ChangedFile,
  ) {}
  get id(): string {
    return `file:${this.agent.job.id}:${this.file.path}`;
  }
}

export class EvidenceNode {
  readonly kind = 'evidence';
  constructor(
    readonly agent: AgentNode,
    readonly what: 'snapshot' | 'patch',
  ) {}
  get id(): string {
    return `evidence:${this.agent.job.id}:${this.what}`;
  }
}

export class MessageNode {
  readonly kind = 'message';
  constructor(
    readonly parentId: string,
    readonly text: string,
  ) {}
  get id(): string {
    return `message:${this.parentId}:${this.text}`;
  }
}

export type TreeNode = RepoNode | AgentNode | UnreadableNode | FileNode | EvidenceNode | MessageNode;

/** Commands invoked from the tree receive the clicked node and, with multi-select, all selected nodes. */
export function agentsFrom(node: unknown, selection: unknown): AgentNode[] {
  const all = Array.isArray(selection) && selection.length ? selection : node ? [node] : [];
  return all.filter((n): n is AgentNode => n instanceof AgentNode);
}
