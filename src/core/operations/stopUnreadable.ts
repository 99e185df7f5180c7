/**
 * Stop of an agent whose record cannot be read: its processes are ended by the
 * marker they carry (see stopUnreadableJob.ts) under the job's operation lock,
 * and the damaged record is left exactly as it was.
 */
import { failure, PaddockError } from '../common/errors';
import type { JobStore } from '../store';
import { stopUnreadableJob } from '../worker/stopUnreadableJob';
import { acquireJobLock } from './context';
import type { StopReport } from './types';

export async function stopUnreadable(store: JobStore, id: string, reason: string, opts: { force: boolean; graceMs: number }): Promise<StopReport> {
  // The operation lock needs no record: a cleanup or retry (which would refuse it anyway) cannot interleave.
  const held = await acquireJobLock(store, id).catch((err: unknown) => {
    throw failure(`Could not stop agent ${id}: ${err instanceof Error ? err.message : String(err)}`);
  });
  try {
    const result = await stopUnreadableJob(store, id, opts);
    // Read again: the reason said its worker was running, which this stop has likely changed.
    const now = await store.tryRead(id);
    const unreadable = now.ok ? reason : now.reason;
    const base: StopReport = { id, generation: 0, action: 'ended-unreadable', stopped: true, state: 'unreadable', ended: result.ended, reason: null, unreadable };
    if (result.survivors.length > 0) {
      const names = result.survivors.slice(0, 5).map((p) => `pid ${p.pid} (${p.command.split(' ')[0]})`).join(', ');
      return { ...base, stopped: false, reason: `still running after SIGKILL: ${names}` };
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

/** Why the record of `id` cannot be read; undefined when it can, or when there is none (the normal path says so). */
export async function unreadableReasonOf(store: JobStore, id: string): Promise<string | undefined> {
  try {
    await store.read(id);
    return undefined;
  } catch (err) {
    if (!(err instanceof PaddockError) || err.code !== 'UNREADABLE') return undefined;
    const entry = await store.tryRead(id);
    return entry.ok ? undefined : entry.reason;
  }
}
