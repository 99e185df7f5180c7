/**
 * The last step of every pump and every pass of a one-shot coordinator (the CLI's: no loop, no
 * watcher, so it never looks at the queue again on its own once its command's work is done). Kept,
 * the lease would make a concurrent `paddock start` or `retry` leave its agent to this process (its
 * pump finds the lease held, its command sees a live leader and starts no background coordinator),
 * and the agent would stay queued with a slot free (bug 170). So the lease is given up, then the
 * queue looked at once more: a process that queued an agent and pumped while this one still held the
 * lease left it here.
 */
import { describeError } from '../common/errors';
import { capacityOf, queueOrder } from '../coordinator/capacity';
import { BRIEF_STEP_STALE_MS } from '../coordinator/ownedLock';
import { jobLock, okJobs, type OperationContext } from '../operations/context';
import type { Leadership } from './leadership';
import { setTimeout as sleep } from 'node:timers/promises';

/** The wait between a one-shot pump's rounds that claim nothing, past the first. */
const IDLE_BACKOFF_MS = 250;

/** Gives the lease up; true when an agent waits that this process must launch (it pumps again, taking the lease if free). */
export async function releaseAndLookAgain(ctx: OperationContext, leadership: Leadership): Promise<boolean> {
  await leadership.release();
  const entries = await ctx.store.list();
  const max = ctx.settings().maxConcurrent;
  if (capacityOf(entries, max).used >= max) return false;
  for (const job of queueOrder(okJobs(entries))) {
    // Asked now, not remembered from the last look: a lock held then may have been let go since, its
    // holder's pump finding the lease still held here. One held now is its holder's to launch: it
    // pumps once it lets go, and the lease is free for it by then.
    if (await jobLock(ctx.store, job.id).isFree()) return true;
  }
  return false;
}

/**
 * `OperationContext.lockLetGo`: a pump when the job whose lock this process let go of is queued (bug 193);
 * a one-shot coordinator's leaves it to a coordinator the CLI makes sure of (`pumpForOperation`, bug 220).
 * A failure is logged, never thrown: the operation's own outcome is what its caller is told.
 */
export async function pumpIfQueued(ctx: OperationContext, id: string, pump: () => Promise<void> | void): Promise<void> {
  try {
    const job = await ctx.store.read(id).catch(() => undefined); // gone or unreadable: nothing to launch
    if (job?.lifecycle.state === 'queued') await pump();
  } catch (err) {
    ctx.log(`Could not launch queued agent ${id} once its lock was let go: ${describeError(err)}`);
  }
}

/**
 * Whether a one-shot pump whose round claimed nothing looks again. Its look after the round found an
 * agent to launch, by a lock free for its owner's liveness, that the claim could not take: a dead
 * holder's lock with a takeover folder beside it (a taker that died mid-takeover), swept only once
 * `BRIEF_STEP_STALE_MS` old. Round after round at once was 246 in a pass; stopping after two left the
 * agent queued with no one to look again, the lease free and no watch armed (bug 221). So the second
 * and later look after a backoff (the lease given up meanwhile), until that folder can be swept.
 */
export class IdleRounds {
  private since: number | undefined;

  async goOn(idle: boolean): Promise<boolean> {
    if (!idle) {
      this.since = undefined;
      return true;
    }
    if (this.since === undefined) {
      this.since = Date.now();
      return true;
    }
    if (Date.now() - this.since >= BRIEF_STEP_STALE_MS + 2 * IDLE_BACKOFF_MS) return false;
    await sleep(IDLE_BACKOFF_MS);
    return true;
  }
}
