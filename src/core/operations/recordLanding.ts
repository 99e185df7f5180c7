/** Writes what a landing did into the agent's record (`landing`) and its timeline. */
import type { JobStore } from '../store';
import type { JobRecord, Landing } from '../store/schema';

export async function recordLanding(store: JobStore, id: string, landing: Omit<Landing, 'at'>): Promise<JobRecord> {
  const at = new Date().toISOString();
  const job = await store.update(id, (j) => ({ ...j, landing: { ...landing, at } }));
  const where = landing.url ?? landing.into;
  await store.appendTimeline(id, { generation: job.lifecycle.generation, type: 'landing', message: `${landing.kind} into ${where}${landing.commit ? ` at ${landing.commit.slice(0, 12)}` : ''}` }).catch(() => undefined);
  return job;
}
