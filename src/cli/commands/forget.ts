/**
 * `paddock forget ID [--yes]`: remove a cleaned agent from the list (its snapshot ref stays). Its
 * archive (ignored files, nested repositories' git dirs: what the snapshot ref does not hold) is
 * kept in the store's `kept/<id>` when it holds work; --yes deletes it instead. An agent whose record
 * cannot be read is removed by keeping its whole folder in `kept/` (nothing of it is deleted).
 */
import { keptWorkSentence, unreadableKeptSentence } from '../../core/operations/archivedWork';
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
    if (report.unreadableKeptIn !== undefined) {
      ctx.io.stdout.write(`Removed unreadable agent ${id} from the list. ${unreadableKeptSentence(report.unreadableKeptIn)}\n`);
      return 0;
    }
    ctx.io.stdout.write(`Removed agent ${id} from the list.${report.kept ? ` ${keptWorkSentence(report.kept.path, report.kept.work)}` : ''}\n`);
    return 0;
  },
});
