/**
 * A `paddock start` killed outright (SIGKILL, the OOM killer: no handler runs)
 * after writing its agent's record and before launching it leaves the agent
 * `queued`, and so does a background coordinator killed while the agent
 * waited for a slot: with no window open nothing would ever launch it, and it
 * would show as queued for good. `list` and `show` look, and when a queued
 * agent has no coordinator, start the background one (`paddock coordinate
 * --until-idle`), which launches it when a slot is free (or fails it saying
 * why, when its start died before giving it a worktree) and then exits. (A
 * start killed later, in `starting`, is settled by `paddock stop` or the next
 * coordinator: telling it from a launch still under way takes its lock.)
 */
import { describeError } from '../../core/common/errors';
import type { JobStore } from '../../core/store';
import type { JobRecord } from '../../core/store/schema';
import { pendingWork } from '../../core/scheduler/pendingWork';
import type { CliContext } from '../command';
import type { CoordinatorPresence } from './backgroundCoordinator';

/**
 * Starts the background coordinator when an agent is queued and none leads; says so on stderr (one
 * sentence) when it started one or could not. Never fails the command that looks.
 */
export async function launchStranded(ctx: CliContext, store: JobStore, jobs: readonly JobRecord[]): Promise<void> {
  const { queued } = pendingWork(jobs);
  if (queued.length === 0) return;
  // Loaded only here: a listing with nothing queued loads no process-spawning or lock code.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ensureCoordinator, whoWill } = require('./backgroundCoordinator') as typeof import('./backgroundCoordinator');
  let presence: CoordinatorPresence;
  try {
    presence = await ensureCoordinator(ctx, store, jobs);
  } catch (err) {
    presence = { kind: 'unavailable', reason: `the leader lease could not be read (${describeError(err, 200)})` };
  }
  if (presence.kind !== 'started' && presence.kind !== 'unavailable') return;
  const named = queued.length <= 3 ? queued.join(', ') : `${queued.slice(0, 3).join(', ')} and ${queued.length - 3} more`;
  const who = queued.length === 1 ? `Agent ${named} is queued` : `Agents ${named} are queued`;
  ctx.io.stderr.write(`${who} with no coordinator running: ${whoWill(presence, queued.length === 1 ? 'launch it when a slot is free, or record why it cannot' : 'launch them as slots free up, or record why they cannot')}.\n`);
}
