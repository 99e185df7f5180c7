/**
 * Remove from List: forgets a cleaned agent's record (its snapshot ref stays unless pruned with
 * --snapshots), or the folder of a create that died before its record (nothing ever ran for it),
 * or, kept whole, the folder of an agent whose record cannot be read (forgetUnreadable.ts).
 * The job folder holds the cleanup's archive, the only copy of what git does not hold: when it holds
 * work, forgetting keeps it in `kept/<id>` (archivedWork.ts says what it holds), and deletes it only
 * with the person's word for it (`--yes`, or `prune --snapshots`).
 */
import { dropStopRequest } from '../store/stopRequest';
import { describeError, failure, PaddockError, usageError } from '../common/errors';
import { removeInterruptedCreate, removeJobFolder, sweepRemovalLeftovers } from '../store/forgetRecord';
import { keepEvidence } from '../store/keptEvidence';
import { isFolderWithoutRecord } from '../store/interruptedCreate';
import type { HeldLock } from '../coordinator/ownedLock';
import type { OperationContext } from './context';
import { heldJobLock, releaseJobLock, withJobLock } from './context';
import { forgetBlocker } from './rules';
import { archivedWork, type ArchivedWork } from './archivedWork';
import { forgetUnreadable } from './forgetUnreadable';

export interface ForgetRequest {
  /** The person asked for the work in the agent's archive to be deleted too (`forget --yes`, `prune --snapshots`). */
  deleteArchivedWork?: boolean;
}

export interface ForgetReport {
  /** Where the archive holding work was kept, and what it holds; null when there was none, or it was deleted as asked. */
  kept: { path: string; work: ArchivedWork } | null;
  /** The agent's record could not be read: its whole folder was kept here (forgetUnreadable.ts). */
  unreadableKeptIn?: string;
}

export async function forgetLocked(ctx: OperationContext, id: string, req: ForgetRequest = {}): Promise<ForgetReport> {
  const job = await ctx.store.read(id);
  const blocked = forgetBlocker(job);
  if (blocked) throw usageError(blocked);
  // Read under the lock: a restore and a new cleanup cannot change the archive between this and the removal.
  const work = req.deleteArchivedWork ? null : await archivedWork(ctx.store, job);
  const kept = work ? { path: await keepEvidence(ctx.store.home, id), work } : null;
  // A stop kept in the runtime directory for this agent's last execution names an agent no longer listed.
  await dropStopRequest(await ctx.store.readStored(id));
  await removeJobFolder(ctx.store.home, id);
  const refNote = job.evidence?.snapshotRef ? `; its snapshot ${job.evidence.snapshotRef} is kept` : '';
  ctx.log(`agent ${id} removed from the list${refNote}${kept ? `; its archive is kept in ${kept.path}` : ''}`);
  return { kept };
}

/** `paddock forget`, the row's Remove from List: either kind of removal, under the job's operation lock. */
export async function forgetAgent(ctx: OperationContext, id: string, req: ForgetRequest = {}): Promise<ForgetReport> {
  const report = await forgetEither(ctx, id, req);
  await sweepRemovalsCutShort(ctx); // an earlier removal that failed half-way (an I/O error) is retried here
  return report;
}

async function forgetEither(ctx: OperationContext, id: string, req: ForgetRequest): Promise<ForgetReport> {
  if (!(await isFolderWithoutRecord(ctx.store.home, id))) {
    try {
      return await withJobLock(ctx, id, 'forget', () => forgetLocked(ctx, id, req));
    } catch (err) {
      if (!(err instanceof PaddockError && err.code === 'UNREADABLE')) throw err;
    }
    return { kept: null, unreadableKeptIn: await forgetUnreadable(ctx, id) };
  }
  // A create in progress holds the lock until its worktree is assigned: waited for like any operation.
  const held = await heldJobLock(ctx.store, id, 'forget');
  try {
    if (!(await isFolderWithoutRecord(ctx.store.home, id))) return await forgetLocked(ctx, id, req); // its create finished meanwhile
    const stays = await removeInterruptedCreateLocked(ctx, id);
    if (stays) throw failure(stays);
    return { kept: null };
  } finally {
    await releaseJobLock(ctx, id, held); // its create, finished meanwhile, may have queued it
  }
}

/**
 * Removes the folder of a create that died before its record, or returns why it stays. The caller
 * holds the job's operation lock, which a live create holds from before its record exists.
 */
export async function removeInterruptedCreateLocked(ctx: OperationContext, id: string): Promise<string | undefined> {
  const kept = await removeInterruptedCreate(ctx.store.home, id);
  if (kept) return kept;
  ctx.log(`agent ${id}: removed the folder of a creation interrupted before its record (nothing had started for it)`);
  ctx.changed(id);
  return undefined;
}

/**
 * The leader's pass: each interrupted create whose lock is free (its creator gone) is removed, or logged once as kept.
 * `takeOrWatch` gives the job's lock when it is free; when a live creator holds it, none, and a pass comes back once it is let go.
 */
export async function sweepInterruptedCreates(
  ctx: OperationContext,
  ids: readonly string[],
  reported: Set<string>,
  takeOrWatch: (id: string) => Promise<HeldLock | undefined>,
): Promise<void> {
  for (const id of ids) {
    const lock = await takeOrWatch(id);
    if (!lock) continue;
    try {
      const kept = await removeInterruptedCreateLocked(ctx, id);
      if (kept && !reported.has(id)) ctx.log(kept);
      if (kept) reported.add(id);
    } catch (err) {
      ctx.log(`could not remove the interrupted creation of ${id}: ${describeError(err)}`);
    } finally {
      await lock.release();
    }
  }
}

/** What removals cut short left out of the listing (see `sweepRemovalLeftovers`): when a coordinator starts leading, after a forget, after a prune. */
export async function sweepRemovalsCutShort(ctx: OperationContext): Promise<void> {
  const swept = await sweepRemovalLeftovers(ctx.store.home);
  if (swept.length > 0) ctx.log(`removed what was left of the folders of ${swept.join(', ')} (their removal had been cut short)`);
}
