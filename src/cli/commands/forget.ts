/** `paddock forget ID`: remove a cleaned agent from the list (its snapshot ref stays). */
import { defineCommand } from '../support/args';
import { withCoordinator } from '../support/session';

export const forgetCommand = defineCommand({
  name: 'forget',
  usage: 'paddock forget ID',
  summary: "Remove a cleaned-up agent from the list (its snapshot ref is kept; see prune --snapshots).",
  options: {},
  positionals: ['ID'],
  async run({ positionals: [id] }, ctx) {
    await withCoordinator(ctx, (c) => c.forget(id));
    ctx.io.stdout.write(`Removed agent ${id} from the list.\n`);
    return 0;
  },
});
