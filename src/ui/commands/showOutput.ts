/** Paddock: Show Paddock Output — the extension's log channel. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerShowOutput(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.showOutput', () => s.log.show());
}
