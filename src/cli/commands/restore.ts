/** `paddock restore ID [--to DIR]`: re-create a cleaned agent's worktree from its evidence. */
import { printable } from '../../core/common/printable';
import { defineCommand } from '../support/args';
import { printJson } from '../support/json';
import { withCoordinator } from '../support/session';

export const restoreCommand = defineCommand({
  name: 'restore',
  usage: 'paddock restore ID [--to DIR] [--json]',
  summary: "Re-create a cleaned agent's worktree (files, ignored files, empty folders, nested repos) from its evidence.",
  options: { to: { type: 'string' }, json: { type: 'boolean' } },
  positionals: ['ID'],
  folders: ['to'],
  async run({ values, positionals: [id] }, ctx) {
    const result = await withCoordinator(ctx, (c) => c.restore(id, values.to));
    if (values.json) {
      printJson(ctx.io.stdout, result);
      return 0;
    }
    const dropped = result.notRestored.length ? `; not restored (dropped at cleanup): ${printable(result.notRestored.slice(0, 5).join(', '))}${result.notRestored.length > 5 ? ' …' : ''}` : '';
    ctx.io.stdout.write(`Restored agent ${id} to ${printable(result.path)} (${printable(result.branchNote)}): ${result.files} file(s) from the snapshot, ${result.archived} from the archive${dropped}.\n`);
    for (const problem of result.problems) ctx.io.stderr.write(`Not as it was: ${printable(problem)}.\n`);
    return 0;
  },
});
