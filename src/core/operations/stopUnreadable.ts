/**
 * Stop of an agent whose record cannot be read: its processes are ended by the
 * marker they carry (see stopUnreadableJob.ts) under the job's operation lock,
 * and the damaged record is left exactly as it was.
 */
import type { JobStore } from '../store';
import { stopUnreadableJob } from '../worker/stopUnreadableJob';
import { heldJobLock } from './context';
import type { StopReport } from './types';

export async function stopUnreadable(store: JobStore, id: string, opts: { force: boolean; graceMs: number }): Promise<StopReport> {
  // The operation lock needs no record: a cleanup or retry (which would refuse it anyway) cannot interleave.
  const held = await heldJobLock(store, id, 'stop');
  try {
    const result = await stopUnreadableJob(store, id, opts);
    // Read after the stop: the reason says whether its worker still runs, which this stop has likely changed.
    const now = await store.tryRead(id);
    const unreadable = now.ok ? undefined : now.reason;
    const base: StopReport = { id, generation: 0, action: 'ended-unreadable', stopped: true, state: 'unreadable', ended: result.ended, reason: null, unreadable };
    if (result.survivors.length > 0) {
      const names = result.survivors.slice(0, 5).map((p) => `pid ${p.pid} (${p.command.split(' ')[0]})`).join(', ');
      return { ...base, stopped: false, reason: `still running after SIGKILL: ${names}` };
    }
    if (result.workerLeft && result.workerUnknown) {
      // No rerun can find it either (its agent, the way to it, is gone): the person ends it by its `--job` argument.
      return { ...base, stopped: false, reason: `its worker still runs after its agent ended and could not be identified (${result.workerUnknown}); end the process whose command line has --job ${id}` };
    }
    if (result.workerLeft) {
      const which = result.workerLeft.pid > 0 ? ` (pid ${result.workerLeft.pid})` : '';
      return { ...base, stopped: false, reason: `its worker${which} still runs after its agent ended; run paddock stop ${id} --force to end it` };
    }
    return base;
  } finally {
    await held.release();
  }
}
