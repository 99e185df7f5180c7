/**
 * Owns every part of the extension for one window. Created once in `activate`
 * with one Coordinator over the shared store; parts receive what they need by
 * constructor. Everything is registered with `_register`, so deactivation
 * disposes timers, watchers, sockets and views — and stops no agent.
 */
import * as vscode from 'vscode';
import { Disposable, disposableTimeout, toDisposable } from '../core/common/lifecycle';
import { describeError } from '../core/common/errors';
import { Coordinator } from '../core/coordinator';
import { resolveRepoRoot } from '../core/git';
import { trustedWorkspaceHolds } from '../core/repoConfig/trustedCommands';
import { JobStore } from '../core/store';
import { registerCommands } from './commands';
import { coordinatorSettings, SECTION, storePath } from './config';
import { COMPARE_SCHEME, CompareContentProvider } from './compareDocument';
import { GIT_SCHEME, GitContentProvider, LOG_SCHEME, LogContentProvider } from './contentProviders';
import { AgentsBadge } from './badge';
import { AgentsModel } from './model/agentsModel';
import { AgentStandings } from './model/agentStandings';
import { AgentSuspensions } from './model/agentSuspensions';
import { ReviewComments } from './review/reviewComments';
import { Notifier } from './notifications';
import type { PaddockServices } from './services';
import { AgentsStatusBar } from './statusBar';
import { registerAgentTerminalProfile } from './terminalProfile';
import { TerminalManager } from './terminals/terminalManager';
import { TrustedWorkspaceFolders } from './trustedWorkspaceFolders';
import { AgentsTreeProvider } from './tree/agentsTreeProvider';
import { UsageMonitor } from './usageMonitor';
import type { TreeNode } from './tree/nodes';
import { workerRuntime } from './workerRuntime';

/** How long closing waits for what it ends: inside the 5 s VS Code gives `deactivate`, with room for the records. */
const CLOSE_BOUND_MS = 4000;

export class PaddockExtension extends Disposable implements PaddockServices {
  readonly log: vscode.LogOutputChannel;
  readonly store: JobStore;
  readonly coordinator: Coordinator;
  readonly agents: AgentsModel;
  readonly standings: AgentStandings;
  readonly suspensions: AgentSuspensions;
  readonly review: ReviewComments;
  readonly tree: AgentsTreeProvider;
  readonly treeView: vscode.TreeView<TreeNode>;
  readonly terminals: TerminalManager;
  readonly logs: LogContentProvider;
  readonly compare: CompareContentProvider;
  readonly trustedFolders: TrustedWorkspaceFolders;
  readonly statusBar: AgentsStatusBar;
  readonly notifier: Notifier;
  readonly usage: UsageMonitor;
  private repos: Promise<string[]> | undefined;

  constructor(readonly context: vscode.ExtensionContext) {
    super();
    this.log = this._register(vscode.window.createOutputChannel('Paddock', { log: true }));
    this.store = new JobStore({ home: storePath(), log: (m) => this.log.debug(m) });
    const runtime = workerRuntime(context);
    this.trustedFolders = this._register(new TrustedWorkspaceFolders());
    this.coordinator = this._register(
      new Coordinator({
        store: this.store,
        settings: () => coordinatorSettings(this.trustedFolders),
        workerScript: runtime.workerScript,
        execPath: runtime.execPath,
        nodePtyPath: runtime.nodePtyPath,
        env: process.env,
        log: (m) => this.log.info(m),
        // A `.paddock.json` check runs from a trusted workspace that holds its repository (the same rule as its setup).
        repoTrusted: (repo) => trustedWorkspaceHolds(repo, this.trustedFolders.list()),
      }),
    );
    this.log.info(`Paddock ${String(context.extension.packageJSON.version)} — store ${this.store.home}, node-pty ${runtime.nodePtyPath ?? 'not found'}`);

    this.agents = this._register(new AgentsModel(this.store, this.coordinator.onDidChangeJob, (m) => this.log.error(m)));
    // The tree view is made just below; until then (and with it visible) the live recheck runs.
    this.standings = this._register(new AgentStandings(this.agents, (m) => this.log.debug(m), () => this.treeView?.visible ?? true));
    this.suspensions = this._register(new AgentSuspensions(this.agents, (m) => this.log.warn(m), () => this.treeView?.visible ?? true, this.store));
    this.tree = this._register(new AgentsTreeProvider(this.agents, this.standings, this.suspensions));
    this.treeView = this._register(
      vscode.window.createTreeView('paddock.agents', { treeDataProvider: this.tree, canSelectMany: true, showCollapseAll: true }),
    );
    this.review = this._register(new ReviewComments(this.store, this.agents, (m) => this.log.warn(m)));
    this._register(this.treeView.onDidChangeVisibility((e) => e.visible && this.standings.recheckLive()));
    this.terminals = this._register(new TerminalManager(this.store, context.workspaceState, this.log));
    this.logs = this._register(new LogContentProvider(this.store));
    this.compare = this._register(new CompareContentProvider(this.coordinator));
    this.statusBar = this._register(new AgentsStatusBar(this.agents));
    this._register(new AgentsBadge(this.agents, this.treeView));
    this.usage = this._register(new UsageMonitor(this.store, this.agents, this.treeView, (m) => this.log.warn(m)));
    this.notifier = this._register(new Notifier(this.agents, this.store, this.coordinator.onDidChangeCapacityBlock, this.log));

    this._register(vscode.workspace.registerTextDocumentContentProvider(GIT_SCHEME, new GitContentProvider()));
    this._register(vscode.workspace.registerTextDocumentContentProvider(LOG_SCHEME, this.logs));
    this._register(vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, this.compare));
    this._register(registerAgentTerminalProfile(this));
    for (const d of registerCommands(this)) this._register(d);

    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) {
          // Settings are read on use; nudge the queue so a raised maxConcurrent takes effect now.
          void this.coordinator.tick();
        }
        if (e.affectsConfiguration(`${SECTION}.tree.showUsage`)) this.tree.rerender();
        if (e.affectsConfiguration(`${SECTION}.showCleanedFor`)) this.tree.rerender();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.repos = undefined;
        void this.workspaceRepos().then((r) => this.agents.setWorkspaceRepos(r));
      }),
    );
    this._register(toDisposable(() => this.log.info('Paddock deactivated; agents keep running.')));

    // After activation returns: resolving repositories spawns git, which must not delay the window.
    this._register(disposableTimeout(() => void this.initialize(), 0, false));
  }

  /**
   * The window is closing or reloading (`deactivate`, before VS Code disposes the extension and
   * waits at most 5 s for this): the checks and teardowns this window runs are ended and recorded.
   */
  close(): Promise<void> {
    return this.coordinator.close(CLOSE_BOUND_MS);
  }

  /** Agents started before a reload (or by the CLI) appear with their true state; terminals re-attach. */
  private async initialize(): Promise<void> {
    try {
      this.agents.setWorkspaceRepos(await this.workspaceRepos());
      await this.agents.ready();
      const restored = await this.terminals.restore();
      if (restored) this.log.info(`re-attached ${restored} terminal(s) from before the reload`);
    } catch (err) {
      this.log.error(`Paddock could not load its agents: ${describeError(err)}`);
    }
  }

  workspaceRepos(): Promise<string[]> {
    this.repos ??= (async () => {
      const roots = await Promise.all(
        (vscode.workspace.workspaceFolders ?? []).map((f) => resolveRepoRoot(f.uri.fsPath).catch(() => undefined)),
      );
      return [...new Set(roots.filter((r): r is string => Boolean(r)))];
    })();
    return this.repos;
  }
}

