import type * as vscode from 'vscode';
import type { Coordinator } from '../core/coordinator';
import type { JobStore } from '../core/store';
import type { CompareContentProvider } from './compareDocument';
import type { LogContentProvider } from './contentProviders';
import type { TerminalManager } from './terminals/terminalManager';
import type { AgentsModel } from './model/agentsModel';
import type { AgentStandings } from './model/agentStandings';
import type { ReviewComments } from './review/reviewComments';
import type { AgentsTreeProvider } from './tree/agentsTreeProvider';
import type { TreeNode } from './tree/nodes';
import type { TrustedWorkspaceFolders } from './trustedWorkspaceFolders';

/** What commands work with; handed to each command by the extension (no globals). */
export interface PaddockServices {
  readonly context: vscode.ExtensionContext;
  readonly store: JobStore;
  readonly coordinator: Coordinator;
  /** The window's agents (what every view and picker reads). */
  readonly agents: AgentsModel;
  /** Where each agent's work stands against its base (cached; refreshed on change). */
  readonly standings: AgentStandings;
  readonly tree: AgentsTreeProvider;
  /** Review comments on agents' files (the comment controller and review.json). */
  readonly review: ReviewComments;
  readonly treeView: vscode.TreeView<TreeNode>;
  readonly terminals: TerminalManager;
  readonly logs: LogContentProvider;
  /** Compare Attempts documents. */
  readonly compare: CompareContentProvider;
  readonly log: vscode.LogOutputChannel;
  /** The trusted workspace's folders as real paths (what the settings' restricted commands need). */
  readonly trustedFolders: TrustedWorkspaceFolders;
  /** Repositories of the workspace folders (main worktrees), resolved at activation. */
  workspaceRepos(): Promise<string[]>;
}
