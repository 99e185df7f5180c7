/**
 * What an ended agent left running, listed while its worker ended it, when that worker was killed
 * before it was done (a reader marks its ender gone): nothing of the worker will end them, and a
 * retry no longer waits for it. The lead coordinator ends them as Stop would — by identity, under
 * the job's operation lock, before any automatic restart in the same pass.
 */
import { describeError } from '../common/errors';
import type { HeldLock } from '../coordinator/ownedLock';
import type { OperationContext } from '../operations/context';
import { stopLocked } from '../operations/stop';
import type { JobRecord } from '../store';
import { abandonedNoneLeft, withAbandonedDone } from '../store/leftoverCheck';
import { findByEnvMarkerAsync } from '../proc';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';

export async function endAbandonedLeftovers(ctx: OperationContext, jobs: readonly JobRecord[], takeOrWatch: (id: string) => Promise<HeldLock | undefined>): Promise<void> {
  for (const job of jobs) {
    if (!job.leftoversEnder?.gone) continue;
    const lock = await takeOrWatch(job.id);
    if (!lock) continue; // someone works on it (a Stop, a cleanup): judged again once they let go
    try {
      // The listing was read before the lock: a retry allowed once the ender was found gone may have
      // started a new generation since, whose running agent this must never stop. Judged again here,
      // under the lock no retry or Stop can start without; a fresh read also drops leftovers that exited.
      const current = await ctx.store.read(job.id);
      if (current.lifecycle.generation !== job.lifecycle.generation || !current.leftoversEnder?.gone) continue;
      // The listing empty: a listed one may have forked a marked process and exited. The ender is
      // done with only once the marker finds nothing either; else Stop ends them (its generation guard).
      if ((current.leftovers?.length ?? 0) === 0 && (await findByEnvMarkerAsync(AGENT_MARKER_ENV, job.id)).length === 0) {
        await ctx.store.update(job.id, (j) => (j.lifecycle.generation === job.lifecycle.generation && abandonedNoneLeft(j) ? withAbandonedDone(j) : j));
        ctx.changed(job.id);
        continue;
      }
      const report = await stopLocked(ctx.store, job.id, { force: false, generation: job.lifecycle.generation });
      ctx.log(`ended what agent ${job.id} left running, its worker gone: ${report.ended.map((p) => p.pid).join(', ') || 'nothing left'}`);
      ctx.changed(job.id);
    } catch (err) {
      ctx.log(`could not end what agent ${job.id} left running: ${describeError(err)}`);
    } finally {
      await lock.release();
    }
  }
}
