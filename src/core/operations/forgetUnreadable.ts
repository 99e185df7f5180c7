/**
 * Remove from List of an agent whose record cannot be read. Nothing of it is deleted: what its folder
 * holds cannot be told from a damaged record, so the whole folder moves to the store's `kept/`
 * (keptEvidence.ts), where the person can inspect or repair it, and `prune --snapshots` names it.
 * Refused while anything of the agent runs (found by the marker its processes carry, as Stop finds
 * them): a running agent's folder must stay where its worker writes.
 */
import { failure } from '../common/errors';
import { treeMembers } from '../proc';
import { keepUnreadableFolder } from '../store/keptEvidence';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import type { OperationContext } from './context';
import { heldJobLock } from './context';

/** Returns the folder the agent's folder was kept in. */
export async function forgetUnreadable(ctx: OperationContext, id: string): Promise<string> {
  const held = await heldJobLock(ctx.store, id, 'forget');
  try {
    const entry = await ctx.store.tryRead(id);
    // Repaired meanwhile (or a stale read): judged again as a readable record is.
    if (entry.ok) throw failure(`Agent ${id} can be read again; nothing was changed: run paddock forget ${id} again.`);
    if (entry.workerRunning) throw failure(`Agent ${id} cannot be read and its worker still runs; paddock stop ${id} ends it first.`);
    const running = await treeMembers(undefined, { name: AGENT_MARKER_ENV, value: id });
    if (running.length > 0) {
      const pids = running.slice(0, 5).map((p) => p.pid).join(', ');
      throw failure(`Agent ${id} cannot be read and ${running.length} of its processes still run (pid ${pids}); paddock stop ${id} ends them first.`);
    }
    const folder = await keepUnreadableFolder(ctx.store.home, id);
    ctx.log(`agent ${id} (unreadable: ${entry.reason}) removed from the list; its folder is kept in ${folder}`);
    return folder;
  } finally {
    await held.release();
  }
}
