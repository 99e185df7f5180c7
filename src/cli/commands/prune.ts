/**
 * `paddock prune [--older-than DAYS] [--snapshots] [--yes]`: forget cleaned-up
 * agents; with --snapshots also delete their snapshot refs (the last copy of
 * their work) and each archive that holds work (the only copy of what git does
 * not hold; without --snapshots it is kept in `kept/<id>`), and the archives
 * kept when agents were forgotten before, listed before anything goes. Asks on a terminal; else needs --yes.
 */
import { failure, usageError } from '../../core/common/errors';
import { printable } from '../../core/common/printable';
import { describeArchivedWork } from '../../core/operations/archivedWork';
import type { PrunePlanItem } from '../../core/operations/prune';
import { defineCommand, plainDecimal } from '../support/args';
import { ask } from '../support/landingChoices';
import { withCoordinator } from '../support/session';

/** One line of the plan: the agent, and what goes (or stays) with it. */
function planLine(item: PrunePlanItem, snapshots: boolean): string {
  const ref = snapshots && item.snapshotRef ? printable(`; deletes ${item.snapshotRef} in ${item.repo}`) : '';
  const work = item.archivedWork ? describeArchivedWork(item.archivedWork) : 'its evidence';
  const archive =
    item.keptFolder !== null
      ? printable(`; deletes ${work} kept in ${item.keptFolder}`)
      : item.archivedWork
        ? `; ${snapshots ? 'deletes' : "keeps in the store's kept/ folder"} ${work}`
        : '';
  const when = item.keptFolder !== null ? `cleaned ${item.cleanedAt}, removed from the list before` : `cleaned ${item.cleanedAt}`;
  return `${item.id}  ${printable(item.title)} (${when})${ref}${archive}`;
}

export const pruneCommand = defineCommand({
  name: 'prune',
  usage: 'paddock prune [--older-than DAYS] [--snapshots] [--yes]',
  summary: 'Forget cleaned-up agents (--older-than DAYS); --snapshots also deletes their snapshot refs and archives.',
  options: { 'older-than': { type: 'string' }, snapshots: { type: 'boolean' }, yes: { type: 'boolean' } },
  positionals: [],
  async run({ values, bad }, ctx) {
    const text = values['older-than'];
    const olderThanDays = text === undefined ? undefined : plainDecimal(text);
    if (text !== undefined && olderThanDays === undefined) throw bad(`--older-than takes a number of days (0 or more), not '${text}'`);
    const req = { olderThanDays, snapshots: values.snapshots === true };
    return withCoordinator(ctx, async (c) => {
      const plan = await c.planPrune(req);
      for (const left of plan.unreadableKept) ctx.io.stdout.write(printable(`Left ${left.folder}: ${left.reason}.`) + '\n');
      if (plan.items.length === 0) {
        ctx.io.stdout.write('No cleaned-up agent to remove.\n');
        return 0;
      }
      for (const item of plan.items) ctx.io.stdout.write(`${planLine(item, req.snapshots)}\n`);
      if (!values.yes) {
        const archives = plan.items.filter((i) => i.archivedWork !== null || i.keptFolder !== null).length;
        const archived = archives > 0 && req.snapshots ? `, the archives of ${archives} of them (the only copy of their ignored files and nested repositories)` : '';
        const what = `${plan.items.length} agent(s)${archived}${req.snapshots ? ' and their snapshot refs (the last copy of their work)' : ''}`;
        if (!ctx.io.stdin.isTTY) throw usageError(`Prune would remove ${what}; pass --yes to confirm when not on a terminal.`);
        if (!/^y(es)?$/i.test(await ask(ctx, `Remove ${what}? [y/N] `))) throw failure('Nothing was changed.');
      }
      const report = await c.prune(plan, req);
      const kept = report.kept.length > 0 ? `; kept ${report.kept.length} archive(s) holding work in ${printable(report.kept.map((k) => k.path).join(', '))}` : '';
      const earlier = report.keptDeleted.length > 0 ? `, deleted ${report.keptDeleted.length} archive(s) kept when agents were removed before` : '';
      ctx.io.stdout.write(`Removed ${report.forgotten.length} agent(s) from the list${req.snapshots ? `, deleted ${report.refsDeleted.length} snapshot ref(s)` : ''}${earlier}${kept}.\n`);
      if (report.problems.length) throw failure(`Not all were removed: ${report.problems.map((p) => `${p.id}: ${p.reason}`).join('; ')}`);
      return 0;
    });
  },
});
