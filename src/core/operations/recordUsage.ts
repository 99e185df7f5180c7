/**
 * Sampling an agent's figures and recording them: the one door for `usage`.
 * The window's Agents view (while visible) and `paddock list` / `show` come
 * here. Each agent's figures are written under its lock through the store's
 * one write path, and only when they moved by more than 5 % (significance.ts);
 * a figure the schema would refuse is dropped alone (validFigures.ts).
 */
import { describeError } from '../common/errors';
import type { JobStore } from '../store/jobStore';
import type { JobRecord } from '../store/schema';
import type { UsageSampler } from '../usage/sampler';
import { usageChanged } from '../usage/significance';
import { validFigures } from '../usage/validFigures';

/**
 * Samples `jobs` and records what changed. Returns each sampled agent's record
 * with the fresh figures (also when they were too close to the recorded ones to
 * be written), so the caller shows what it measured.
 */
export async function sampleAndRecordUsage(
  store: JobStore,
  sampler: UsageSampler,
  jobs: readonly JobRecord[],
  log: (message: string) => void = () => undefined,
): Promise<Map<string, JobRecord>> {
  const figures = await sampler.sample(jobs);
  const out = new Map<string, JobRecord>();
  const given = new Map(jobs.map((j) => [j.id, j]));
  for (const [id, sampled] of figures) {
    const usage = validFigures(sampled);
    const known = given.get(id)!;
    // Unchanged against the record the caller holds: no lock, no read. (A change is checked again under the lock.)
    if (!usageChanged(known.usage, usage)) {
      out.set(id, { ...known, usage });
      continue;
    }
    try {
      const recorded = await store.recordUsage(id, usage, usageChanged);
      out.set(id, { ...recorded, usage });
    } catch (err) {
      // An agent forgotten or unreadable meanwhile has no figures to keep; the others go on.
      log(`usage of agent ${id}: ${describeError(err)}`);
    }
  }
  return out;
}
