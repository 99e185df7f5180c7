/** `paddock show ID`: one agent in full. */
import { defineCommand } from '../support/args';
import { formatDetails } from '../support/format';
import { jobJson, printJson } from '../support/json';
import { openStore } from '../support/store';
import { withFreshUsage } from '../support/usage';

export const showCommand = defineCommand({
  name: 'show',
  usage: 'paddock show ID [--json]',
  summary: 'Show one agent: state, worktree, cleanup and saved evidence.',
  options: { json: { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const store = openStore(ctx);
    const read = await store.read(id);
    const job = (await withFreshUsage(store, [read], ctx)).get(id) ?? read;
    if (values.json) printJson(ctx.io.stdout, jobJson(job));
    else ctx.io.stdout.write(`${formatDetails(job)}\n`);
    return 0;
  },
});
