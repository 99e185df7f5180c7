/**
 * `paddock forget ID [--yes]`: remove a cleaned agent from the list (its snapshot ref stays). Its
 * archive (ignored files, nested repositories' git dirs: what the snapshot ref does not hold) is
 * kept in the store's `kept/<id>` when it holds work; --yes deletes it instead.
 */
import { keptWorkSentence } from '../../core/operations/archivedWork';
import { defineCommand } from '../support/args';
import { withCoordinator } from '../support/session';

export const forgetCommand = defineCommand({
  name: 'forget',
  usage: 'paddock forget ID [--yes]',
  summary: "Remove a cleaned-up agent from the list (its snapshot ref is kept, and its archive when it holds work; see prune --snapshots); --yes deletes the archive too.",
  options: { yes: { type: 'boolean' } },
  positionals: ['ID'],
  async run({ positionals: [id], values }, ctx) {
    const report = await withCoordinator(ctx, (c) => c.forget(id, { deleteArchivedWork: values.yes === true }));
    ctx.io.stdout.write(`Removed agent ${id} from the list.${report.kept ? ` ${keptWorkSentence(report.kept.path, report.kept.work)}` : ''}\n`);
    return 0;
  },
});
