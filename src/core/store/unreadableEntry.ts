/**
 * A record that cannot be read says nothing about whether its agent still runs:
 * it may be damaged (by hand, by the disk) while its worker goes on. The worker's
 * execution lock says so instead: it exists while a worker holds the execution
 * and its time is refreshed every few seconds, so a fresh one means a live worker.
 * Such an agent keeps its capacity slot (otherwise a queued agent starts in its
 * place, past `maxConcurrent`), and the person is told it still runs.
 */
import * as fs from 'node:fs';
import type { JobEntry } from './jobReader';
import { EXECUTION_LOCK_STALE_MS } from './executionLock';
import type { StoreLayout } from './paths';

export const STILL_RUNNING_NOTE = 'its worker is still running';

/** Whether a worker holds the job's execution lock now (refreshed within the stale time, or later than now: the clock went back). */
export function executionLockFresh(layout: StoreLayout, id: string, now = Date.now()): boolean {
  try {
    const st = fs.statSync(layout.executionLock(id));
    return st.isDirectory() && now - st.mtimeMs < EXECUTION_LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/** The entry of a record that cannot be read, saying whether a worker still runs its agent. */
export function unreadableEntry(layout: StoreLayout, id: string, reason: string): Extract<JobEntry, { ok: false }> {
  if (!executionLockFresh(layout, id)) return { id, ok: false, reason };
  return { id, ok: false, reason: `${reason}; ${STILL_RUNNING_NOTE}`, workerRunning: true };
}

/** Why the record of `id` cannot be read, with whether its worker still runs. */
export function unreadableReason(layout: StoreLayout, id: string, reason: string): string {
  return unreadableEntry(layout, id, reason).reason;
}
