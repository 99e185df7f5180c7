import { parseArgs } from 'node:util';
import { failure, usageError } from '../../core/common/errors';
import { JobStore } from '../../core/store';
import { stopJob } from '../../core/worker/stopJob';
import type { CliCommand } from '../command';

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
    const store = new JobStore({ home: JobStore.defaultHome(ctx.env) });
    const result = await stopJob(store, id, { force: values.force });
    if (result.survivors.length > 0) {
      const who = result.survivors.map((s) => `${s.pid} (${s.command})`).join(', ');
      throw failure(`Agent ${id} could not be stopped completely; still running: ${who}.`);
    }
    if (result.via === 'none') {
      ctx.io.stdout.write(`Agent ${id} is already ${result.state}.\n`);
    } else {
      const how = result.via === 'store' ? ' (it had not started)' : result.via === 'direct' ? ' (its worker was gone; its processes were stopped directly)' : result.escalated ? ' (killed after the grace period)' : '';
      ctx.io.stdout.write(`Agent ${id} is ${result.state}${how}.\n`);
    }
    return 0;
  },
};

export default stopCommand;
