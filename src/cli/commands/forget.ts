/**
 * `paddock forget ID [--yes]`: remove a cleaned agent from the list (its snapshot ref stays). Its
 * archive (ignored files, nested repositories' git dirs: what the snapshot ref does not hold) is
 * deleted with it only with --yes; without, forget says what it holds and exits 1.
 */
import { defineCommand } from '../support/args';
import { withCoordinator } from '../support/session';

export const forgetCommand = defineCommand({
  name: 'forget',
  usage: 'paddock forget ID [--yes]',
  summary: 'Remove a cleaned-up agent from the list (its snapshot ref is kept; see prune --snapshots); --yes also when its archive holds work.',
  options: { yes: { type: 'boolean' } },
  positionals: ['ID'],
  async run({ positionals: [id], values }, ctx) {
    await withCoordinator(ctx, (c) => c.forget(id, { deleteArchivedWork: values.yes === true }));
    ctx.io.stdout.write(`Removed agent ${id} from the list.\n`);
    return 0;
  },
});
