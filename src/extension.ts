/**
 * The extension's entry point: a thin adapter. `activate` builds one
 * PaddockExtension that owns everything (tree, terminals, commands, status bar)
 * and hands it to VS Code for disposal. Deactivation stops no agent: agents
 * belong to their detached workers and outlive the window.
 */
import * as vscode from 'vscode';
import { PaddockExtension } from './ui/paddockExtension';

export interface PaddockApi {
  /** For tests and other extensions: the running extension's parts. */
  readonly extension: PaddockExtension;
}

export function activate(context: vscode.ExtensionContext): PaddockApi {
  const extension = new PaddockExtension(context);
  context.subscriptions.push(extension);
  return { extension };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions; agents keep running.
}
