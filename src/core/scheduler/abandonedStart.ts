/**
 * A start whose launching process died (SIGKILL, a closed terminal, a window
 * reloaded) between `starting` and its worker's claim: the record says
 * `starting`, names no launch and no execution, and nobody holds the job's
 * operation lock (the launcher holds it for the whole launch). Nothing ever ran,
 * so it is failed, undoing what the launch made of a first generation. The
 * leader does this on its passes; Stop does it too, so `paddock stop` settles
 * such an agent without a window, instead of waiting on a worker that never was.
 */
import type { OperationContext } from '../operations/context';
import type { JobRecord } from '../store';
import { undoLaunch } from './launch';

export const ABANDONED_START_REASON = 'the process launching it stopped before its worker started';

/** What the record says of an abandoned start; the caller proves the launcher gone by holding the job's operation lock. */
export function looksAbandonedStart(job: JobRecord): boolean {
  return job.lifecycle.state === 'starting' && job.launch === null && job.execution === null;
}

/** Fails an abandoned start (the caller holds the job's operation lock and read `job` under it). */
export async function recoverAbandonedStart(ctx: OperationContext, job: JobRecord): Promise<void> {
  // A first generation that never ran: its worktree and branch (even half-made, folder missing) are the launch's own.
  const ours = job.lifecycle.generation === 1 && job.lifecycle.startedAt === null && job.worktree !== null;
  await undoLaunch(ctx, job, ours, ABANDONED_START_REASON);
}
