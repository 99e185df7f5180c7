/**
 * Who holds a capacity slot: an agent whose process may be running, and an
 * agent whose cleanup failed (its worktree, processes or branch are still
 * there — the slot is what makes a person notice a stuck cleanup). A cleanup
 * in progress of an ended agent holds none: it finishes or becomes incomplete.
 * A running check holds one too: it is work on the machine like an agent's.
 * So does an agent whose record cannot be read while its worker still runs.
 */
import type { JobEntry } from '../store/jobReader';
import type { JobRecord, LifecycleState } from '../store/schema';

const ACTIVE: readonly LifecycleState[] = ['starting', 'running', 'waiting', 'cancelling'];

export function isActive(job: JobRecord): boolean {
  return ACTIVE.includes(job.lifecycle.state);
}

export function cleanupIncomplete(job: JobRecord): boolean {
  return job.cleanup?.phase === 'incomplete';
}

/** A check command runs in the agent's worktree: it takes a slot like an agent (issue 14). */
export function checkRunning(job: JobRecord): boolean {
  return job.check?.state === 'running';
}

export function holdsSlot(job: JobRecord): boolean {
  return isActive(job) || cleanupIncomplete(job) || checkRunning(job);
}

/** An agent that holds a slot only because its cleanup failed. */
export interface CapacityBlocker {
  id: string;
  title: string;
  stage: 'terminating' | 'capturing' | 'removing' | null;
  failures: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  needsAttention: boolean;
}

export interface CapacityState {
  max: number;
  used: number;
  queued: number;
  /** Non-empty only when capacity is full and incomplete cleanups hold some of the slots. */
  blockedBy: CapacityBlocker[];
}

/** Capacity from a listing: readable records by their state, unreadable ones by whether a worker still runs them. */
export function capacityOf(entries: readonly JobEntry[], max: number): CapacityState {
  const jobs: JobRecord[] = [];
  let unreadableRunning = 0;
  for (const e of entries) {
    if (e.ok) jobs.push(e.job);
    else if (e.workerRunning) unreadableRunning++;
  }
  const holders = jobs.filter(holdsSlot);
  const used = holders.length + unreadableRunning;
  const full = used >= max;
  const blockedBy = full
    ? holders
        .filter((j) => !isActive(j) && j.cleanup?.phase === 'incomplete')
        .map((j) => ({
          id: j.id,
          title: j.title,
          stage: j.cleanup!.stage,
          failures: j.cleanup!.failures,
          nextAttemptAt: j.cleanup!.nextAttemptAt,
          lastError: j.cleanup!.lastError,
          needsAttention: j.cleanup!.needsAttention,
        }))
        .sort((a, b) => a.id.localeCompare(b.id))
    : [];
  return { max, used, queued: jobs.filter((j) => j.lifecycle.state === 'queued').length, blockedBy };
}

/** Queued jobs in the order they start: oldest first, ties by id. */
export function queueOrder(jobs: readonly JobRecord[]): JobRecord[] {
  return jobs
    .filter((j) => j.lifecycle.state === 'queued')
    .sort((a, b) => (a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? -1 : 1));
}
