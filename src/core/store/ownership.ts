/**
 * Who owns a job's execution, and what a reader must do when that owner is gone.
 * Liveness is judged from pid + start time + boot id (never the pid alone), so a
 * reused pid is never mistaken for the worker, and a dead owner is noticed at the
 * next read rather than after a lock timeout.
 */
import { isThisProcess, Liveness, livenessOf, processTableSource, type RecordedIdentity } from '../proc/identity';
import { isTerminalState, JobRecord, LifecycleState } from './schema';

export interface Reconciliation {
  to: LifecycleState;
  detail: string;
  type: 'owner-gone' | 'launch-failed';
}

/** Chosen for a worker that died between spawn and claim: it never started the agent, so nothing is orphaned. */
export const LAUNCH_FAILED_DETAIL = 'worker exited before it started the agent';

/** Chosen for a live record that names no worker at all (damaged, or edited by hand): nobody can ever end it. */
export const NO_OWNER_DETAIL = 'the record names no owner (no worker execution is recorded for it)';

export type LivenessProbe = (identity: RecordedIdentity) => Liveness;

/** undefined when the record is consistent with the processes running now. */
export function judgeOwnership(job: JobRecord, probe: LivenessProbe = livenessOf): Reconciliation | undefined {
  const { state, generation } = job.lifecycle;
  if (isTerminalState(state)) return undefined;
  if (job.execution) {
    const liveness = probe(job.execution);
    if (liveness === 'alive') return undefined;
    return { to: 'orphaned', detail: `worker ${job.execution.pid} ${describeGone(liveness)}`, type: 'owner-gone' };
  }
  // Registration grace: between spawn and claim only `launch` names the worker (its start time unknown when the
  // launcher's look failed: judged by pid and boot until it claims; a worker that died is told at the next read).
  if (job.launch && job.launch.generation === generation && (state === 'queued' || state === 'starting')) {
    const liveness = probe({ pid: job.launch.workerPid, startTime: job.launch.startTime, bootId: job.launch.bootId });
    if (liveness === 'alive') return undefined;
    return { to: 'failed', detail: LAUNCH_FAILED_DETAIL, type: 'launch-failed' };
  }
  // Only a claimed worker moves an execution past `starting` (a `starting` record without one is a launch
  // under way, or an abandoned one the launcher's lock settles): running, waiting or cancelling with no
  // execution has no owner that could ever record its end, so it is orphaned like one whose owner died.
  if (state !== 'queued' && state !== 'starting') return { to: 'orphaned', detail: NO_OWNER_DETAIL, type: 'owner-gone' };
  return undefined;
}

/**
 * `judgeOwnership` without blocking the event loop: on the portable backend each process's stat is a
 * blocking `ps` run (every read of a live agent's record asked one), so another process is judged
 * from the process table, read asynchronously — exact, as the record was read before the table was
 * taken. A record that asks about no other process (ended, or owned by this one) reads nothing.
 */
export async function judgeOwnershipNow(job: JobRecord): Promise<Reconciliation | undefined> {
  let asksAnother = false;
  judgeOwnership(job, (identity) => {
    asksAnother ||= !isThisProcess(identity);
    return 'alive';
  });
  if (!asksAnother) return judgeOwnership(job);
  const stats = await processTableSource();
  return judgeOwnership(job, (identity) => livenessOf(identity, stats));
}

function describeGone(liveness: Exclude<Liveness, 'alive'>): string {
  switch (liveness) {
    case 'dead':
      return 'is gone';
    case 'zombie':
      return 'has exited (zombie)';
    case 'reused':
      return 'is gone (its pid now belongs to another process)';
  }
}
