/** `paddock show ID`: one agent in full. */
import type { CliCommand } from '../command';
import { expectPositionals, parseCommandArgs } from '../support/args';
import { formatDetails } from '../support/format';
import { jobJson, printJson } from '../support/json';
import { openStore } from '../support/store';

const usage = 'paddock show ID [--json]';

export const showCommand: CliCommand = {
  name: 'show',
  usage,
  summary: 'Show one agent: state, worktree, cleanup and saved evidence.',
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } }, usage);
    const [id] = expectPositionals(positionals, ['ID'], usage);
    const job = await openStore(ctx).read(id);
    if (values.json) printJson(ctx.io.stdout, jobJson(job));
    else ctx.io.stdout.write(`${formatDetails(job)}\n`);
    return 0;
  },
};
