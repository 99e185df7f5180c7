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
import { jobLock, okJobs, type OperationContext } from '../operations/context';
import type { Leadership } from './leadership';

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
 * `OperationContext.lockLetGo`: a pump when the job whose lock this process let go of is queued (bug 193).
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
