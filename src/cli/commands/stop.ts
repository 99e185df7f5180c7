import { parseArgs } from 'node:util';
import { failure, usageError } from '../../core/common/errors';
import type { CliCommand } from '../command';
import { isTerminalState } from '../../core/store/schema';
import { openStore, withCoordinator } from '../support/session';

export const stopCommand: CliCommand = {
  name: 'stop',
  usage: 'paddock stop ID [--force]',
  summary: 'Stop an agent: SIGTERM to its processes, SIGKILL after the grace (at once with --force).',
  async run(argv, ctx) {
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { force: { type: 'boolean', default: false } },
    });
    if (positionals.length !== 1) throw usageError('Usage: paddock stop ID [--force]');
    const id = positionals[0];
    // Through the coordinator: it takes the job's operation lock (no double stop from two
    // windows) and proves that no process of the agent is left.
    const before = await openStore(ctx).read(id);
    const report = await withCoordinator(ctx, (c) => c.stop(id, { force: values.force }));
    if (!report.stopped) throw failure(`Agent ${id} could not be proven stopped: ${report.reason ?? 'unknown reason'}.`);
    const already = isTerminalState(before.lifecycle.state) ? 'already ' : '';
    ctx.io.stdout.write(`Agent ${id} is ${already}${report.state}.\n`);
    return 0;
  },
};

export default stopCommand;
