/**
 * What a cleanup attempt observes, as one hash: an incomplete cleanup whose
 * fingerprint has not changed since it failed would fail the same way, so the
 * retry is skipped (and rescheduled) instead of run.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describeError } from '../common/errors';
import { worktreeFingerprint } from '../git';
import { findByEnvMarkerAsync, holdersOf } from '../proc';
import type { JobRecord } from '../store/schema';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';

/**
 * A look that failed (a `ps` or `lsof` that kept failing, bug 195) saw nothing: never the same as
 * any other look, so an attempt is never skipped as "unchanged" on what nobody saw.
 */
async function lookedOrUnknown<T>(look: () => Promise<T>): Promise<T | string> {
  try {
    return await look();
  } catch (err) {
    return `could not look (${randomUUID()}): ${describeError(err, 200)}`;
  }
}

/** Everything an attempt looks at; the same fingerprint as the last failure means nothing changed. */
export async function observeFingerprint(job: JobRecord): Promise<string> {
  const worktreeExists = job.worktree !== null && existsSync(job.worktree);
  let tree = 'none';
  if (worktreeExists) {
    try {
      tree = await worktreeFingerprint(job.repo, job.worktree!, job.branch);
    } catch (err) {
      tree = `error:${describeError(err, 200)}`;
    }
  }
  const [holders, marked] = await Promise.all([
    lookedOrUnknown(async () => (worktreeExists ? await holdersOf(job.worktree!) : []).map((h) => h.pid).sort((a, b) => a - b)),
    lookedOrUnknown(async () => (await findByEnvMarkerAsync(AGENT_MARKER_ENV, job.id)).map((p) => `${p.pid}:${p.startTime}`).sort()),
  ]);
  const observed = {
    state: job.lifecycle.state,
    generation: job.lifecycle.generation,
    deleteBranch: job.cleanup?.deleteBranch ?? false,
    worktreeExists,
    tree,
    holders,
    marked,
  };
  return createHash('sha256').update(JSON.stringify(observed)).digest('hex').slice(0, 40);
}

