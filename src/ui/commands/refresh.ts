/** Paddock: Refresh — one coordinator pass and a full re-read of the store. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerRefresh(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.refresh', async () => {
    // At once: the re-read reconciles dead owners itself, and whatever the pass then writes reaches the
    // model as change events, as every write does. One after the other, 500 agents took ~120 ms.
    await Promise.all([s.coordinator.tick(), s.agents.reload()]);
  });
}
