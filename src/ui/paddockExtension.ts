/**
 * Owns every part of the extension for one window. Created once in `activate`;
 * parts receive what they need by constructor. Everything is registered with
 * `_register` so deactivation disposes it all (and stops no agent).
 */
import * as vscode from 'vscode';
import { Disposable } from '../core/common/lifecycle';
import { AgentsTreeProvider } from './tree/agentsTreeProvider';
import { registerCommands } from './commands/registerCommands';

export class PaddockExtension extends Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly tree: AgentsTreeProvider;
  readonly treeView: vscode.TreeView<unknown>;

  constructor(readonly context: vscode.ExtensionContext) {
    super();
    this.log = this._register(vscode.window.createOutputChannel('Paddock', { log: true }));
    this.tree = this._register(new AgentsTreeProvider());
    this.treeView = this._register(
      vscode.window.createTreeView('paddock.agents', { treeDataProvider: this.tree, showCollapseAll: false, canSelectMany: true }),
    );
    for (const d of registerCommands(this)) this._register(d);
    this.log.info(`Paddock ${context.extension.packageJSON.version as string} activated`);
  }
}
