/**
 * Which agents are suspended, as every view reads it (`list`, `show`, the tree): readSuspensions
 * with the process launching a `starting` agent, or running its cleanup, named by the agent's
 * operation lock (a launch holds it until the worker has claimed, a cleanup until its outcome), so
 * one stopped half-way is said, not shown as at work (bugs 133, 134).
 */
import type { JobStore } from '../store';
import { readSuspensions, type Suspension } from '../store/suspension';
import type { JobRecord } from '../store/schema';
import { jobLock } from './context';

export function storeSuspensions(store: JobStore, jobs: readonly JobRecord[]): Promise<Map<string, Suspension>> {
  // The holder its owner file names, alive or not: readSuspensions judges it in its one look at the processes.
  return readSuspensions(jobs, { operatorOf: (job) => jobLock(store, job.id).recordedOwner() });
}
