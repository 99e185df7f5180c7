/**
 * Waits until a job's record satisfies a predicate, woken by the store's change
 * notifications (every committed write touches `changes/<id>`), not by polling.
 * A slow re-read covers what a notification cannot: a worker that died before
 * writing anything is reconciled only by a reader.
 */
import type { JobRecord, JobStore } from '../store';
import { waitForChange } from '../store/watcher';

/** Re-read when no change was seen for this long. */
const QUIET_REREAD_MS = 1000;

export async function waitForJob(store: JobStore, id: string, done: (job: JobRecord) => boolean, timeoutMs: number): Promise<JobRecord> {
  const watcher = store.watch({ reconcileIntervalMs: 0, debounceMs: 5 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      // Begun before reading: a change between the read and the wait is not lost.
      const changed = waitForChange(watcher, Math.max(0, Math.min(deadline - Date.now(), QUIET_REREAD_MS)), id);
      const job = await store.read(id).catch((err: unknown) => {
        changed.cancel();
        throw err;
      });
      if (done(job) || Date.now() >= deadline) {
        changed.cancel();
        return job;
      }
      await changed.done;
    }
  } finally {
    watcher.dispose();
  }
}
