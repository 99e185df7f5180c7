/**
 * A stop asked for while nothing could be written in the store (a full disk, a read-only store: bug 141).
 * Its worker could not record `cancelled`, so the next reader found it gone and judged `orphaned` (a
 * crash) — and an automatic restart ran the stopped agent again. The request is kept beside the
 * execution's socket, in the runtime directory (not on the store's disk), named after that socket, so it
 * speaks of that one execution only (a retry's generation has another socket); a reader that finds its
 * worker gone records `cancelled` instead.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { JobRecord } from './schema';

/** Said in the record of an agent whose stop is recorded from its request. */
export const STOP_REQUEST_DETAIL = 'stopped by paddock stop while the store could not be written';

function requestFile(job: JobRecord): string | undefined {
  return job.execution ? `${job.execution.socketPath}.stop` : undefined;
}

/** Keeps the stop of `job`'s current execution; false when it could not be kept (no execution, the runtime directory unwritable). */
export function keepStopRequest(job: JobRecord): boolean {
  const file = requestFile(job);
  if (file === undefined) return false;
  try {
    writeFileSync(file, `${JSON.stringify({ id: job.id, generation: job.lifecycle.generation, at: new Date().toISOString() })}\n`, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** Whether a stop of `job`'s current execution was asked for and could not be recorded then. */
export function stopRequested(job: JobRecord): boolean {
  const file = requestFile(job);
  return file !== undefined && existsSync(file);
}

/** Once the record says the agent ended, its request is done with (best effort: it names a finished execution only). */
export function dropStopRequest(job: JobRecord): void {
  const file = requestFile(job);
  if (file !== undefined) rmSync(file, { force: true });
}
