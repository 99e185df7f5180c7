/**
 * The extension's entry point: a thin adapter. `activate` builds one
 * PaddockExtension that owns everything (tree, terminals, commands, status bar)
 * and hands it to VS Code for disposal. Deactivation stops no agent: agents
 * belong to their detached workers and outlive the window.
 */
import * as vscode from 'vscode';
import { PLATFORMS_DOC_URL, unsupportedPlatformMessage } from './core/common/platform';
import type { JobStore } from './core/store';
import type { AgentsModel } from './ui/model/agentsModel';
import type { AgentStandings } from './ui/model/agentStandings';
import type { ReviewComments } from './ui/review/reviewComments';
import type { Notifier } from './ui/notifications';
import { PaddockExtension } from './ui/paddockExtension';
import type { TerminalManager } from './ui/terminals/terminalManager';
import type { AgentsTreeProvider } from './ui/tree/agentsTreeProvider';
import type { UsageMonitor } from './ui/usageMonitor';

/** What the extension hands out (to its host tests): the parts a test observes, not the whole extension. */
export interface PaddockApi {
  readonly store: JobStore;
  readonly agents: AgentsModel;
  readonly tree: AgentsTreeProvider;
  readonly terminals: TerminalManager;
  readonly notifier: Notifier;
  readonly standings: AgentStandings;
  readonly review: ReviewComments;
  /** The status bar's text. */
  statusText(): string;
  /** The status bar's tooltip (with the agents' total figures). */
  statusTooltip(): string;
  /** Samples the per-agent figures while the Agents view is visible. */
  readonly usage: UsageMonitor;
}

export function activate(context: vscode.ExtensionContext): PaddockApi | undefined {
  const unsupported = unsupportedPlatformMessage();
  if (unsupported) {
    // Nothing is registered: a command or view that half-works is worse than this one sentence.
    void vscode.window.showErrorMessage(unsupported, 'Open the Docs').then((choice) => {
      if (choice) void vscode.env.openExternal(vscode.Uri.parse(PLATFORMS_DOC_URL));
    });
    return undefined;
  }
  const started = performance.now();
  const extension = new PaddockExtension(context);
  context.subscriptions.push(extension);
  running = extension;
  // Measured by `npm run bench` (it reads this line from the log).
  extension.log.info(`activated in ${(performance.now() - started).toFixed(1)} ms`);
  const { store, agents, tree, terminals, notifier, usage, standings, review } = extension;
  return { store, agents, tree, terminals, notifier, usage, standings, review, statusText: () => extension.statusBar.text, statusTooltip: () => extension.statusBar.tooltip };
}

/**
 * The one extension `activate` made, for `deactivate`, which VS Code calls without arguments.
 * Kept here, in the entry point, and nowhere else.
 */
let running: PaddockExtension | undefined;

/**
 * Everything is disposed through context.subscriptions, and agents keep running. What the window
 * itself runs in sessions of their own (a check, a worktree's teardown) is ended first, and waited
 * for: VS Code awaits this promise (up to 5 s) before the extension host exits.
 */
export function deactivate(): Promise<void> | undefined {
  const closing = running?.close();
  running = undefined;
  return closing;
}
