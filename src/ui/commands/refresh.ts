/** Paddock: Refresh — one coordinator pass and a full re-read of the store. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerRefresh(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.refresh', async () => {
    await s.coordinator.tick();
    await s.agents.reload();
  });
}
