/** `paddock logs ID [--follow]`: the agent's recorded terminal output (redacted). */
import { isTerminalState } from '../../core/store/schema';
import { defineCommand } from '../support/args';
import { openStore } from '../support/store';

const POLL_MS = 300;
/** Enough printed bytes to find our place again after the oldest output segment was dropped. */
const TAIL_BYTES = 4096;

export const logsCommand = defineCommand({
  name: 'logs',
  usage: 'paddock logs ID [--follow]',
  summary: "Print the agent's recorded terminal output (redacted); --follow keeps printing until it ends.",
  options: { follow: { type: 'boolean', short: 'f' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const store = openStore(ctx);
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
});

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
