/**
 * Waits until a job's record satisfies a predicate, woken by the store's change
 * notifications (every committed write touches `changes/<id>`), not by polling.
 * A slow re-read covers what a notification cannot: a worker that died before
 * writing anything is reconciled only by a reader.
 */
import type { JobRecord, JobStore } from '../store';

/** Re-read when no change was seen for this long. */
const QUIET_REREAD_MS = 1000;

export async function waitForJob(store: JobStore, id: string, done: (job: JobRecord) => boolean, timeoutMs: number): Promise<JobRecord> {
  const watcher = store.watch({ reconcileIntervalMs: 0, debounceMs: 5 });
  let wake: (() => void) | undefined;
  const subscription = watcher.onDidChangeJob((changed) => {
    if (changed === id) wake?.();
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      // Subscribed before reading: a change between the read and the wait is not lost.
      const changed = new Promise<void>((resolve) => (wake = resolve));
      const job = await store.read(id);
      const left = deadline - Date.now();
      if (done(job) || left <= 0) return job;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([changed, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(left, QUIET_REREAD_MS))))]);
      clearTimeout(timer);
    }
  } finally {
    subscription.dispose();
    watcher.dispose();
  }
}
