/** `paddock apply ID`: the agent's whole diff (commits and uncommitted work) as uncommitted changes in the main worktree. */
import { printable } from '../../core/common/printable';
import { defineCommand } from '../support/args';
import { choicesFrom, withLandingChoices } from '../support/landingChoices';
import { withCoordinator } from '../support/session';

export const applyCommand = defineCommand({
  name: 'apply',
  usage: 'paddock apply ID [--stop-first|--while-running]',
  summary: "Put an agent's whole diff into the main worktree as uncommitted changes (refused if it would overwrite yours).",
  options: { 'stop-first': { type: 'boolean' }, 'while-running': { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id], bad }, ctx) {
    const { running } = choicesFrom(values, bad);
    const report = await withCoordinator(ctx, (c) => withLandingChoices(ctx, { running }, (chosen) => c.apply(id, { running: chosen.running })));
    const n = report.files.length;
    ctx.io.stdout.write(`Applied agent ${id}'s work to ${printable(report.into)}: ${n} file${n === 1 ? '' : 's'} changed, uncommitted.\n`);
    return 0;
  },
});
