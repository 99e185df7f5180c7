/**
 * The lifecycle state machine of one execution. Every state change anywhere in
 * Paddock goes through `LEGAL_TRANSITIONS`; retry (a new generation) is the only
 * way out of a terminal state and is not a transition (see `beginGeneration`).
 */
import { failure } from '../common/errors';
import { queuedLifecycle } from './newJob';
import { isTerminalState, JobRecord, Lifecycle, LifecycleState } from './schema';

export const LEGAL_TRANSITIONS: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = {
  // Nothing runs yet: it can be cancelled outright, or fail to spawn.
  queued: ['starting', 'cancelled', 'failed'],
  // A worker was spawned; the agent is not running yet.
  starting: ['running', 'cancelling', 'completed', 'failed', 'orphaned'],
  running: ['waiting', 'cancelling', 'completed', 'failed', 'orphaned'],
  waiting: ['running', 'cancelling', 'completed', 'failed', 'orphaned'],
  // The agent may still finish on its own (or die) while being stopped.
  cancelling: ['cancelled', 'completed', 'failed', 'orphaned'],
  completed: [],
  failed: [],
  cancelled: [],
  orphaned: [],
};

export function isLegalTransition(from: LifecycleState, to: LifecycleState): boolean {
  return LEGAL_TRANSITIONS[from].includes(to);
}

export function assertLegalTransition(id: string, from: LifecycleState, to: LifecycleState): void {
  if (!isLegalTransition(from, to)) {
    throw failure(`Agent ${id} cannot go from ${from} to ${to}.`, 'ILLEGAL_TRANSITION');
  }
}

export type LifecyclePatch = Partial<Omit<Lifecycle, 'state' | 'generation'>>;

/**
 * Returns the record after moving it to `to`: checks the table, applies the
 * patch, stamps times, and clears everything that names a live process when the
 * state is terminal (pid, worker pid, launch, execution with its socket/token).
 */
export function applyTransition(job: JobRecord, to: LifecycleState, patch: LifecyclePatch = {}, now = new Date()): JobRecord {
  const from = job.lifecycle.state;
  assertLegalTransition(job.id, from, to);
  const at = now.toISOString();
  const lifecycle: Lifecycle = { ...job.lifecycle, ...stripUndefined(patch), state: to, generation: job.lifecycle.generation };
  if (to === 'running' && lifecycle.startedAt === null) lifecycle.startedAt = at;
  if (to !== 'waiting') lifecycle.waitingReason = patch.waitingReason ?? null;
  if (isTerminalState(to)) {
    lifecycle.endedAt = patch.endedAt ?? at;
    lifecycle.pid = null;
    lifecycle.workerPid = null;
    lifecycle.waitingReason = null;
    // The setup ran in the worker's terminal: an end recorded for a worker that died or was killed
    // (orphaned, a forced stop) left it `running` on an ended record, where nothing runs it.
    const setup = job.setup?.state === 'running' ? { ...job.setup, state: 'failed' as const } : job.setup;
    return { ...job, lifecycle, launch: null, execution: null, ...(setup !== job.setup ? { setup } : {}) };
  }
  return { ...job, lifecycle };
}

/** A fresh execution of an ended job: generation + 1, back to `queued`, exit information cleared. */
export function applyNewGeneration(job: JobRecord): JobRecord {
  const from = job.lifecycle.state;
  if (!isTerminalState(from)) {
    throw failure(`Agent ${job.id} is ${from}; only an ended agent can be retried.`, 'ILLEGAL_TRANSITION');
  }
  return {
    ...job,
    lifecycle: queuedLifecycle(job.lifecycle.generation + 1, job.lifecycle.lastActivityAt),
    launch: null,
    execution: null,
    // The ended execution's worker is done with what it left running, or gone: it blocks nothing now.
    ...(job.leftoversEnder ? { leftoversEnder: null } : {}),
    // Its words were about the ended execution (leftoverWords.ts); the listing itself stays until they exit or are stopped.
    ...(job.leftoversFate ? { leftoversFate: null } : {}),
    // A failed launch's kept worktree is the retry's to run in now: its words were of the failure.
    ...(job.keptWorktree ? { keptWorktree: null } : {}),
  };
}

function stripUndefined<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
