/** `paddock retry ID`: a new execution of an ended agent in its worktree. */
import type { CliCommand } from '../command';
import { expectPositionals, parseCommandArgs } from '../support/args';
import { jobJson, printJson } from '../support/json';
import { withCoordinator } from '../support/session';

const usage = 'paddock retry ID [--json]';

export const retryCommand: CliCommand = {
  name: 'retry',
  usage,
  summary: 'Run an ended agent again in its worktree (a new generation).',
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } }, usage);
    const [id] = expectPositionals(positionals, ['ID'], usage);
    const job = await withCoordinator(ctx, (c) => c.retry(id));
    if (values.json) printJson(ctx.io.stdout, jobJson(job));
    else ctx.io.stdout.write(`Agent ${job.id} is ${job.lifecycle.state} (generation ${job.lifecycle.generation}).\n`);
    return 0;
  },
};
