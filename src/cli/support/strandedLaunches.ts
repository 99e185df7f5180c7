/**
 * With no window open, a `paddock start` killed outright (SIGKILL, the OOM
 * killer: no handler runs) after writing its agent's record, or the background
 * coordinator killed while the agent waited for a slot, leaves the agent
 * `queued`, or `starting` with no worker, and nothing would ever launch or
 * settle it: it would show as queued or starting for good. `list` and `show`
 * look, and when such an agent has no coordinator, start the background one
 * (`paddock coordinate --until-idle`), which launches a queued agent when a slot
 * is free, fails an abandoned start saying why (undoing what it made), and
 * then exits. A `starting` agent counts only while nobody holds its operation
 * lock: a launch under way holds it from start to end.
 */
import { describeError } from '../../core/common/errors';
import type { JobStore } from '../../core/store';
import type { JobRecord } from '../../core/store/schema';
import { pendingWork } from '../../core/scheduler/pendingWork';
import type { CliContext } from '../command';
import type { CoordinatorPresence } from './backgroundCoordinator';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when an agent is queued or starting: a listing
   with neither loads no process-spawning, lock or launch code. */

/** Starts whose launcher is gone: `starting` with no launch or execution recorded, and the agent's operation lock free. */
async function abandonedStarts(store: JobStore, starting: readonly JobRecord[]): Promise<string[]> {
  if (starting.length === 0) return [];
  const { looksAbandonedStart } = require('../../core/scheduler/abandonedStart') as typeof import('../../core/scheduler/abandonedStart');
  const { jobLock } = require('../../core/operations/context') as typeof import('../../core/operations/context');
  const out: string[] = [];
  for (const job of starting) {
    if (looksAbandonedStart(job) && (await jobLock(store, job.id).owner()) === undefined) out.push(job.id);
  }
  return out;
}

/** "Agent a is queued" / "agents a, b, c and 2 more are queued": `what` follows the ids, its verb in both numbers. */
function said(ids: readonly string[], what: { one: string; many: string }): string {
  const named = ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} and ${ids.length - 3} more`;
  return ids.length === 1 ? `agent ${named} ${what.one}` : `agents ${named} ${what.many}`;
}

/**
 * Starts the background coordinator when an agent is stranded (see above) and none leads; says so on
 * stderr, one line, when it started one or could not. Never fails the command that looks.
 */
export async function launchStranded(ctx: CliContext, store: JobStore, jobs: readonly JobRecord[]): Promise<void> {
  const { queued, launching } = pendingWork(jobs);
  if (queued.length === 0 && launching.length === 0) return;
  const { ensureCoordinator, whoWill } = require('./backgroundCoordinator') as typeof import('./backgroundCoordinator');
  let presence: CoordinatorPresence;
  let abandoned: string[] = [];
  try {
    const starting = new Set(launching);
    abandoned = await abandonedStarts(store, jobs.filter((j) => starting.has(j.id)));
    if (queued.length === 0 && abandoned.length === 0) return;
    presence = await ensureCoordinator(ctx, store, jobs);
  } catch (err) {
    presence = { kind: 'unavailable', reason: `its locks could not be read (${describeError(err, 200)})` };
  }
  if (presence.kind !== 'started' && presence.kind !== 'unavailable') return;
  const who = [
    ...(queued.length > 0 ? [said(queued, { one: 'is queued', many: 'are queued' })] : []),
    ...(abandoned.length > 0 ? [said(abandoned, { one: 'was left starting by a launch that stopped', many: 'were left starting by a launch that stopped' })] : []),
  ].join(', and ');
  const action = queued.length + abandoned.length === 1 ? 'launch it when a slot is free, or record why it cannot' : 'launch them as slots free up, or record why they cannot';
  ctx.io.stderr.write(`${who.charAt(0).toUpperCase()}${who.slice(1)} with no coordinator running: ${whoWill(presence, action)}.\n`);
}
