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
  const started = performance.now();
  const extension = new PaddockExtension(context);
  context.subscriptions.push(extension);
  // Measured by `npm run bench` (it reads this line from the log).
  extension.log.info(`activated in ${(performance.now() - started).toFixed(1)} ms`);
  return { extension };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions; agents keep running.
}
