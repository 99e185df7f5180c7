import type { JobStore } from '../store';
import { isTerminalState } from '../store/schema';

/** Records that a job failed to start (unless it has ended by other means meanwhile). */
export async function failJob(store: JobStore, id: string, detail: string): Promise<void> {
  const job = await store.read(id);
  if (!isTerminalState(job.lifecycle.state)) {
    await store.transition(id, 'failed', { detail });
  }
}
