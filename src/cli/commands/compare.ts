/** `paddock compare GROUP`: the attempts of a group side by side (state, time, check, commits, files ±, lines in common). */
import { defineCommand } from '../support/args';
import { comparisonText } from '../../core/attempts/compareReport';
import { printJson } from '../support/json';
import { withCoordinator } from '../support/session';

export const compareCommand = defineCommand({
  name: 'compare',
  usage: 'paddock compare GROUP [--json]',
  summary: 'Compare the attempts of a group: state, elapsed, check, commits, files changed (+/−) and the lines they added in common.',
  options: { json: { type: 'boolean' } },
  positionals: ['GROUP'],
  async run({ positionals: [group], values }, ctx) {
    const comparison = await withCoordinator(ctx, (c) => c.compare(group));
    if (values.json) printJson(ctx.io.stdout, comparison);
    else ctx.io.stdout.write(comparisonText(comparison));
    return 0;
  },
});
