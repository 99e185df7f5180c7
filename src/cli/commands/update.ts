/** `paddock update ID [--rebase]`: bring the base into the agent's branch, in its worktree. */
import { printable } from '../../core/common/printable';
import { defineCommand } from '../support/args';
import { withCoordinator } from '../support/session';

export const updateCommand = defineCommand({
  name: 'update',
  usage: 'paddock update ID [--rebase] [--commit-uncommitted]',
  summary: "Bring the base into the agent's branch inside its worktree (a conflict stays there to resolve).",
  options: { rebase: { type: 'boolean' }, 'commit-uncommitted': { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const report = await withCoordinator(ctx, (c) => c.update(id, { rebase: values.rebase === true, commitUncommitted: values['commit-uncommitted'] === true }));
    const base = printable(report.base);
    ctx.io.stdout.write(report.updated ? `Agent ${id}: ${values.rebase ? `rebased onto ${base}` : `merged ${base} into its branch`} (now at ${report.head.slice(0, 12)}).\n` : `Agent ${id} is already up to date with ${base}.\n`);
    return 0;
  },
});
