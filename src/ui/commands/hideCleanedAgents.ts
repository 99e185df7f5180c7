/** Paddock: Hide Cleaned Agents — back to showing cleaned agents for `paddock.showCleanedFor` hours only. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerHideCleanedAgents(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.hideCleanedAgents', () => s.tree.setShowAllCleaned(false));
}
