/** `paddock start`: a new agent in its own worktree; prints its id (or its record with --json). */
import { usageError } from '../../core/common/errors';
import type { CliCommand } from '../command';
import { parseCommandArgs } from '../support/args';
import { jobJson, printJson } from '../support/json';
import { withCoordinator } from '../support/session';

const usage =
  'paddock start [--repo DIR] [--title TEXT] [--base REF] [--profile NAME] [--prompt TEXT] [--json] [-- COMMAND [ARGS...]]';

export const startCommand: CliCommand = {
  name: 'start',
  usage,
  summary: 'Start an agent in a new worktree and branch (the profile’s command, or COMMAND).',
  async run(argv, ctx) {
    const dashes = argv.indexOf('--');
    const own = dashes < 0 ? argv : argv.slice(0, dashes);
    const command = dashes < 0 ? undefined : argv.slice(dashes + 1);
    const { values, positionals } = parseCommandArgs(
      own,
      {
        repo: { type: 'string' },
        title: { type: 'string' },
        base: { type: 'string' },
        profile: { type: 'string' },
        prompt: { type: 'string' },
        json: { type: 'boolean' },
      },
      usage,
    );
    if (positionals.length > 0) {
      throw usageError(`Unexpected argument '${positionals[0]}'; put the agent's command after --, e.g. paddock start -- ${positionals.join(' ')}`);
    }
    if (command !== undefined && command.length === 0) throw usageError(`No command after --; usage: ${usage}`);
    const job = await withCoordinator(ctx, (c) =>
      c.start({
        repo: values.repo ?? ctx.cwd,
        title: values.title,
        base: values.base,
        profile: values.profile,
        prompt: values.prompt,
        command,
      }),
    );
    if (values.json) printJson(ctx.io.stdout, jobJson(job));
    else ctx.io.stdout.write(`${job.id}\n`);
    if (job.lifecycle.state === 'queued' && !values.json) {
      ctx.io.stderr.write(`Agent ${job.id} is queued: it starts when a slot frees up (paddock coordinate, or a VS Code window, runs the queue).\n`);
    }
    return 0;
  },
};
