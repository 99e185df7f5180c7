/**
 * `prune`: forgets every cleaned agent (or those cleaned more than N days
 * ago); with `snapshots`, also deletes their snapshot refs — which are then
 * the last copy of their work, so the plan is listed before anything goes.
 * The plan names each agent's archive that holds work (archivedWork.ts): kept
 * in `kept/<id>` as forget keeps it, or with `snapshots` deleted with the refs —
 * those the plan showed, and no other.
 */
import { describeError } from '../common/errors';
import { runGit } from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { okJobs, withJobLock } from './context';
import { archivedWork, type ArchivedWork } from './archivedWork';
import { forgetLocked, sweepRemovalsCutShort } from './forget';
import { canForget } from './rules';

export interface PruneRequest {
  olderThanDays?: number;
  snapshots?: boolean;
}

export interface PrunePlanItem {
  id: string;
  title: string;
  repo: string;
  cleanedAt: string;
  /** The snapshot ref that `snapshots` would delete. */
  snapshotRef: string | null;
  /** The work in its archive (the snapshot ref does not hold it): kept by a prune, deleted by one with `snapshots`; null when none. */
  archivedWork: ArchivedWork | null;
}

export interface PruneReport {
  forgotten: string[];
  /** Archives holding work, kept in `kept/<id>` (a prune without `snapshots`). */
  kept: { id: string; path: string }[];
  refsDeleted: string[];
  problems: { id: string; reason: string }[];
}

/** What a prune would remove, read-only. */
export async function planPrune(ctx: OperationContext, req: PruneRequest, now = Date.now()): Promise<PrunePlanItem[]> {
  const cutoff = req.olderThanDays === undefined ? Infinity : now - req.olderThanDays * 86_400_000;
  const cleanedAt = (j: JobRecord) => j.cleanup?.updatedAt ?? j.createdAt;
  const jobs = okJobs(await ctx.store.list()).filter((j) => canForget(j) && (req.olderThanDays === undefined || Date.parse(cleanedAt(j)) <= cutoff));
  const plan: PrunePlanItem[] = [];
  // One after another: a store of a thousand cleaned agents must not open their archives all at once.
  for (const j of jobs) {
    plan.push({ id: j.id, title: j.title, repo: j.repo, cleanedAt: cleanedAt(j), snapshotRef: j.evidence?.snapshotRef ?? null, archivedWork: await archivedWork(ctx.store, j) });
  }
  return plan;
}

export async function prune(ctx: OperationContext, plan: readonly PrunePlanItem[], req: PruneRequest): Promise<PruneReport> {
  const report: PruneReport = { forgotten: [], kept: [], refsDeleted: [], problems: [] };
  for (const item of plan) {
    try {
      await withJobLock(ctx.store, item.id, 'forget', async () => {
        if (req.snapshots && item.snapshotRef) {
          const res = await runGit(['update-ref', '-d', item.snapshotRef], { cwd: item.repo, allowFailure: true });
          if (res.code === 0) report.refsDeleted.push(item.snapshotRef);
          else report.problems.push({ id: item.id, reason: `its snapshot ${item.snapshotRef} could not be deleted (${res.stderr.trim().split('\n')[0]})` });
        }
        // Only an archive the plan showed may go: one that came to hold work since (a restore and a new cleanup) is kept.
        const { kept } = await forgetLocked(ctx, item.id, { deleteArchivedWork: req.snapshots === true && item.archivedWork !== null });
        if (kept) report.kept.push({ id: item.id, path: kept.path });
      });
      report.forgotten.push(item.id);
    } catch (err) {
      report.problems.push({ id: item.id, reason: describeError(err) });
    }
  }
  await sweepRemovalsCutShort(ctx); // once, not per agent
  return report;
}
