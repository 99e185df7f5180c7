import { parseArgs } from 'node:util';
import { usageError } from '../../core/common/errors';
import { isTerminalState, JobStore } from '../../core/store';
import type { CliCommand } from '../command';

const POLL_MS = 300;
/** Enough printed bytes to find our place again after the oldest output segment was dropped. */
const TAIL_BYTES = 4096;

export const logsCommand: CliCommand = {
  name: 'logs',
  usage: 'paddock logs ID [--follow]',
  summary: "Print the agent's recorded terminal output (redacted); --follow keeps printing until it ends.",
  async run(argv, ctx) {
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { follow: { type: 'boolean', short: 'f', default: false } },
    });
    if (positionals.length !== 1) throw usageError('Usage: paddock logs ID [--follow]');
    const id = positionals[0];
    const store = new JobStore({ home: JobStore.defaultHome(ctx.env) });
    await store.read(id); // clear error for a missing or malformed id
    let seen = await store.readOutput(id);
    ctx.io.stdout.write(seen);
    if (!values.follow) return 0;
    for (;;) {
      const ended = isTerminalState((await store.read(id)).lifecycle.state);
      const now = await store.readOutput(id);
      ctx.io.stdout.write(newPart(seen, now));
      seen = now;
      if (ended) return 0;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  },
};

/** What `now` adds to `before`; the log may have dropped its oldest segment in between. */
export function newPart(before: Buffer, now: Buffer): Buffer {
  const tail = before.subarray(Math.max(0, before.length - TAIL_BYTES));
  if (tail.length === 0) return now;
  if (now.length >= before.length && now.subarray(before.length - tail.length, before.length).equals(tail)) {
    return now.subarray(before.length);
  }
  const at = now.lastIndexOf(tail);
  return at >= 0 ? now.subarray(at + tail.length) : now;
}

export default logsCommand;
