/** Remove from List: forgets a cleaned agent's record (its snapshot ref stays unless pruned with --snapshots). */
import { usageError } from '../common/errors';
import { removeJobFolder } from '../store/forgetRecord';
import type { OperationContext } from './context';
import { forgetBlocker } from './rules';

export async function forgetLocked(ctx: OperationContext, id: string): Promise<void> {
  const job = await ctx.store.read(id);
  const blocked = forgetBlocker(job);
  if (blocked) throw usageError(blocked);
  await removeJobFolder(ctx.store.home, id);
  ctx.log(`agent ${id} removed from the list${job.evidence?.snapshotRef ? `; its snapshot ${job.evidence.snapshotRef} is kept` : ''}`);
}
