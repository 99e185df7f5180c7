/**
 * queued → cancelled, written in one place: a stop of an agent that never
 * started, and a cleanup of one. Refused (UNEXPECTED_STATE) when the job left
 * `queued` meanwhile, so a launch that won the race is never overwritten.
 */
import type { JobRecord, JobStore } from '../store';

export function cancelQueued(store: JobStore, id: string, detail: string): Promise<JobRecord> {
  return store.transition(id, 'cancelled', { detail, endedAt: new Date().toISOString() }, { expectFrom: ['queued'] });
}
