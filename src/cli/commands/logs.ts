/** `paddock logs ID [--follow]`: the agent's recorded terminal output (redacted). */
import { failure, PaddockError } from '../../core/common/errors';
import type { JobStore } from '../../core/store/jobStore';
import { isTerminalState, type JobRecord } from '../../core/store/schema';
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
      // The read reconciles a dead worker at once: its agent shows orphaned (an ended state) here.
      const job = await readFollowed(store, id);
      const now = await store.readOutput(id);
      ctx.io.stdout.write(newPart(seen, now));
      seen = now;
      if (isTerminalState(job.lifecycle.state)) return followEnd(job);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  },
});

/**
 * An agent that ended (completed, failed, stopped) left its whole log: the follow is done, status 0.
 * An orphaned one lost its worker, which recorded its output: what it printed after is not in the
 * log, and a script waiting on the follow must not take that for a clean end.
 */
function followEnd(job: JobRecord): number {
  if (job.lifecycle.state !== 'orphaned') return 0;
  throw failure(`Agent ${job.id}'s worker is gone (orphaned); its log ends here.`);
}

/** The record removed while followed is a lost source (status 1), not the bad id it is at the start (status 2). */
async function readFollowed(store: JobStore, id: string): Promise<JobRecord> {
  try {
    return await store.read(id);
  } catch (err) {
    if (err instanceof PaddockError && err.code === 'NOT_FOUND') throw failure(`Agent ${id}'s record is gone; its log ends here.`);
    throw err;
  }
}

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
