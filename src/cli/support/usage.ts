/**
 * `paddock list` and `show` ask for the agents' figures: sampling costs
 * nothing when nobody looks, so a command that looks samples — every agent
 * that has figures (it runs, or its worktree is on disk). A one-shot process
 * has no earlier snapshot to measure CPU over: the sampler takes one and
 * waits half a second first, only when some agent runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sampleAndRecordUsage } from '../../core/operations/recordUsage';
import type { JobEntry, JobStore } from '../../core/store';
import type { JobRecord } from '../../core/store/schema';
import { hasUsageToSample } from '../../core/usage/currentUsage';
import { ENDED_FIGURES_FILE, EndedFigures } from '../../core/usage/endedFigures';
import { UsageSampler } from '../../core/usage/sampler';
import type { CliContext } from '../command';

/** The records with fresh figures for the agents that have any. */
export async function withFreshUsage(store: JobStore, jobs: readonly JobRecord[], ctx: CliContext): Promise<Map<string, JobRecord>> {
  if (!jobs.some(hasUsageToSample)) return new Map();
  // A one-shot process: where the measures stand is kept for the next, in each agent's job folder and,
  // for the agents that ended, in one file of the store.
  const endedFigures = new EndedFigures({ path: join(store.home, ENDED_FIGURES_FILE), jobExists: (id) => existsSync(store.jobDir(id)), blocking: true });
  const sampler = new UsageSampler({ outputDir: (id) => store.outputDir(id), cursorDir: (id) => store.jobDir(id), env: ctx.env, blocking: true, endedFigures });
  // All of them: the sampler takes those with figures, and forgets what it kept of the others.
  return sampleAndRecordUsage(store, sampler, jobs);
}

/** `list`: the entries, with fresh figures where an agent has any. */
export async function entriesWithFreshUsage(store: JobStore, entries: readonly JobEntry[], ctx: CliContext): Promise<JobEntry[]> {
  const fresh = await withFreshUsage(store, entries.flatMap((e) => (e.ok ? [e.job] : [])), ctx);
  return entries.map((e) => (e.ok && fresh.has(e.id) ? { ...e, job: fresh.get(e.id)! } : e));
}
