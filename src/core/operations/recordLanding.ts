/** Writes what a landing did into the agent's record (`landing`) and its timeline. */
import type { JobStore } from '../store';
import type { JobRecord, Landing, TimelineEntry } from '../store/schema';

/** The timeline's word for a landing of this kind: `<kind> into <where>[ at <commit>]`. */
const landingMessage = (kind: Landing['kind'], where: string, commit: string | null): string => `${kind} into ${where}${commit ? ` at ${commit.slice(0, 12)}` : ''}`;

/** Whether a timeline entry is recordLanding's, for a landing of this kind (of any kind without one). */
export function isLandingEntry(entry: Pick<TimelineEntry, 'type' | 'message'>, kind?: Landing['kind']): boolean {
  return entry.type === 'landing' && (kind === undefined || entry.message?.startsWith(`${kind} into `) === true);
}

export async function recordLanding(store: JobStore, id: string, landing: Omit<Landing, 'at'>): Promise<JobRecord> {
  const at = new Date().toISOString();
  const job = await store.update(id, (j) => ({ ...j, landing: { ...landing, at } }));
  const where = landing.url ?? landing.into;
  await store.appendTimeline(id, { generation: job.lifecycle.generation, type: 'landing', message: landingMessage(landing.kind, where, landing.commit) }).catch(() => undefined);
  return job;
}
