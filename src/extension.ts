/**
 * The extension's entry point: a thin adapter. `activate` builds one
 * PaddockExtension that owns everything (tree, terminals, commands, status bar)
 * and hands it to VS Code for disposal. Deactivation stops no agent: agents
 * belong to their detached workers and outlive the window.
 */
import * as vscode from 'vscode';
import { PLATFORMS_DOC_URL, unsupportedPlatformMessage } from './core/common/platform';
import { PaddockExtension } from './ui/paddockExtension';

export interface PaddockApi {
  /** For tests and other extensions: the running extension's parts. */
  readonly extension: PaddockExtension;
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
  // Measured by `npm run bench` (it reads this line from the log).
  extension.log.info(`activated in ${(performance.now() - started).toFixed(1)} ms`);
  return { extension };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions; agents keep running.
}
