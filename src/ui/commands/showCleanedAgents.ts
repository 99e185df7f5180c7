/** Paddock: Show Cleaned Agents / Hide Cleaned Agents — the view-title toggle over `paddock.showCleanedFor`. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerShowCleanedAgents(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.showCleanedAgents', () => s.tree.setShowAllCleaned(true));
}
