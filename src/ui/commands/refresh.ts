/** Paddock: Refresh — one coordinator pass and a full re-read of the store. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerRefresh(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.refresh', async () => {
    // One read of every record (without blocking the window; dead owners reconciled) for both the pass
    // and the model; whatever the pass then writes reaches the model as change events, as every write does.
    // The mark first: an agent whose change is noticed while the listing is read keeps what the model reads of it.
    const mark = s.agents.noticeMark();
    const listing = await s.store.list();
    await Promise.all([s.coordinator.tick(listing), s.agents.reload({ listing, readAfter: mark })]);
  });
}
