/**
 * `prune`: forgets every cleaned agent (or those cleaned more than N days
 * ago); with `snapshots`, also deletes their snapshot refs — which are then
 * the last copy of their work, so the plan is listed before anything goes.
 * The plan names each agent's archive that holds work (archivedWork.ts): kept
 * in `kept/<id>` as forget keeps it, or with `snapshots` deleted with the refs —
 * those the plan showed, and no other. With `snapshots` the plan also holds the
 * archives kept from agents forgotten before (keptEvidence.ts), with their refs.
 */
import { promises as fs } from 'node:fs';
import { describeError } from '../common/errors';
import { firstLine, NO_HOOKS, runGit } from '../git';
import { deleteKeptFolder, readKeptFolders } from '../store/keptEvidence';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { heldJobLock, okJobs, releaseJobLock, withJobLock } from './context';
import { archivedWork, archivedWorkIn, type ArchivedWork } from './archivedWork';
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
  /** Set for an agent removed from the list before: the `kept/` folder holding its archive (deleted with `snapshots`). */
  keptFolder: string | null;
}

export interface PrunePlan {
  items: PrunePlanItem[];
  /** Kept folders whose record copy cannot be read: left as they are (nothing says whose work they hold). */
  unreadableKept: { folder: string; reason: string }[];
}

export interface PruneReport {
  forgotten: string[];
  /** Archives holding work, kept in `kept/<id>` (a prune without `snapshots`). */
  kept: { id: string; path: string }[];
  refsDeleted: string[];
  /** Kept folders of agents removed from the list before, deleted (with `snapshots`). */
  keptDeleted: string[];
  problems: { id: string; reason: string }[];
}

/** What a prune would remove, read-only. */
export async function planPrune(ctx: OperationContext, req: PruneRequest, now = Date.now()): Promise<PrunePlan> {
  const cutoff = req.olderThanDays === undefined ? Infinity : now - req.olderThanDays * 86_400_000;
  const old = (j: JobRecord) => req.olderThanDays === undefined || Date.parse(cleanedAt(j)) <= cutoff;
  const listed = okJobs(await ctx.store.list()).filter((j) => canForget(j) && old(j));
  const items: PrunePlanItem[] = [];
  // One after another: a store of a thousand cleaned agents must not open their archives all at once.
  for (const j of listed) items.push({ ...planned(j), archivedWork: await archivedWork(ctx.store, j), keptFolder: null });
  const unreadableKept: PrunePlan['unreadableKept'] = [];
  if (req.snapshots) {
    for (const kept of await readKeptFolders(ctx.store.home)) {
      if (!kept.ok) unreadableKept.push({ folder: kept.folder, reason: kept.reason });
      else if (old(kept.job)) items.push({ ...planned(kept.job), archivedWork: await archivedWorkIn(kept.folder, kept.job), keptFolder: kept.folder });
    }
  }
  return { items, unreadableKept };
}

const cleanedAt = (j: JobRecord) => j.cleanup?.updatedAt ?? j.createdAt;

function planned(j: JobRecord): Pick<PrunePlanItem, 'id' | 'title' | 'repo' | 'cleanedAt' | 'snapshotRef'> {
  return { id: j.id, title: j.title, repo: j.repo, cleanedAt: cleanedAt(j), snapshotRef: j.evidence?.snapshotRef ?? null };
}

/** Deletes the snapshot ref the plan named, or says why it stays. */
async function deleteSnapshotRef(item: PrunePlanItem, report: PruneReport): Promise<void> {
  if (!item.snapshotRef) return;
  const res = await runGit(['update-ref', '-d', item.snapshotRef], { cwd: item.repo, allowFailure: true, config: NO_HOOKS });
  if (res.code === 0) report.refsDeleted.push(item.snapshotRef);
  else report.problems.push({ id: item.id, reason: `its snapshot ${item.snapshotRef} could not be deleted (${firstLine(res.stderr)})` });
}

/**
 * An archive kept from an earlier forget, with its snapshot ref unless the id is listed again (the
 * ref is then the listed agent's, kept or pruned with it). Under the id's lock: a forget moving the
 * same id's evidence into `kept/` waits.
 */
async function deleteKept(ctx: OperationContext, item: PrunePlanItem & { keptFolder: string }, report: PruneReport): Promise<void> {
  const held = await heldJobLock(ctx.store, item.id, 'prune');
  try {
    const listedAgain = await fs.lstat(ctx.store.jobDir(item.id)).then(
      () => true,
      () => false,
    );
    if (!listedAgain) await deleteSnapshotRef(item, report);
    await deleteKeptFolder(item.keptFolder);
    report.keptDeleted.push(item.keptFolder);
  } finally {
    await releaseJobLock(ctx, item.id, held); // the id listed again may be a queued agent's
  }
}

export async function prune(ctx: OperationContext, plan: PrunePlan, req: PruneRequest): Promise<PruneReport> {
  const report: PruneReport = { forgotten: [], kept: [], refsDeleted: [], keptDeleted: [], problems: [] };
  for (const item of plan.items) {
    try {
      if (item.keptFolder !== null) {
        if (req.snapshots) await deleteKept(ctx, { ...item, keptFolder: item.keptFolder }, report);
        continue;
      }
      await withJobLock(ctx, item.id, 'forget', async () => {
        if (req.snapshots) await deleteSnapshotRef(item, report);
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
