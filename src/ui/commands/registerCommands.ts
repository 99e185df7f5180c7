import * as vscode from 'vscode';
import type { PaddockExtension } from '../paddockExtension';

/** Command ids of DESIGN.md whose behaviour lands with later issues. */
const PENDING = [
  'paddock.startAgent', 'paddock.attach', 'paddock.attachReadOnly', 'paddock.sendPrompt', 'paddock.stop',
  'paddock.retry', 'paddock.cleanUp', 'paddock.retryCleanup', 'paddock.stopAll', 'paddock.cleanUpFinished',
  'paddock.openWorktree', 'paddock.openChanges', 'paddock.copyBranch', 'paddock.showLog', 'paddock.revealPatch',
  'paddock.openFileDiff',
];

export function registerCommands(ext: PaddockExtension): vscode.Disposable[] {
  const disposables = PENDING.map((id) =>
    vscode.commands.registerCommand(id, () => {
      void vscode.window.showInformationMessage(`Paddock: ${id} is not yet available in this build.`);
    }),
  );
  disposables.push(vscode.commands.registerCommand('paddock.refresh', () => ext.tree.refresh()));
  disposables.push(vscode.commands.registerCommand('paddock.showOutput', () => ext.log.show()));
  return disposables;
}
