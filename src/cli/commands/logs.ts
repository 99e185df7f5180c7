/** `paddock logs ID [--follow]`: the agent's recorded terminal output (redacted). */
import { failure, PaddockError } from '../../core/common/errors';
import { DEFAULT_OUTPUT_CAP, OUTPUT_START, type OutputPosition, type OutputRead } from '../../core/store';
import type { JobStore } from '../../core/store/jobStore';
import { isNotRegularFile } from '../../core/store/regularFile';
import { storeErrorWords } from '../../core/store/damagedPart';
import { isFsError } from '../../core/common/fsErrors';
import { isTerminalState, type JobRecord } from '../../core/store/schema';
import type { CliContext } from '../command';
import { defineCommand } from '../support/args';
import { openStore } from '../support/store';
import { watchReaderGone } from '../support/readerGone';

const POLL_MS = 300;

export const logsCommand = defineCommand({
  name: 'logs',
  usage: 'paddock logs ID [--follow]',
  summary: "Print the agent's recorded terminal output (redacted); --follow keeps printing until it ends.",
  options: { follow: { type: 'boolean', short: 'f' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const store = openStore(ctx);
    await store.read(id); // clear error for a missing or malformed id
    const read = await readOutput(store, id, OUTPUT_START);
    ctx.io.stdout.write(read.data);
    if (!values.follow) return 0;
    // A reader that went away (`| head -1`) ends the follow at once, quietly, as a failed write of the
    // output does: an agent that prints nothing for hours must not keep it running till then.
    const readerGone = new AbortController();
    const watch = watchReaderGone(ctx.io.stdout, () => readerGone.abort());
    try {
      return await follow(store, id, read.position, ctx, readerGone.signal);
    } finally {
      watch.dispose();
    }
  },
});

async function follow(store: JobStore, id: string, from: OutputPosition, ctx: CliContext, readerGone: AbortSignal): Promise<number> {
  let position = from;
  for (;;) {
    // The read reconciles a dead worker at once: its agent shows orphaned (an ended state) here.
    const job = await readFollowed(store, id);
    // Only what the log gained since the last look, after the state: an ended agent's log is whole by now.
    const read = await readOutput(store, id, position);
    position = read.position;
    if (read.skipped) ctx.io.stderr.write(`paddock logs: output the log had already dropped (it keeps the newest ${DEFAULT_OUTPUT_CAP / 1024 / 1024} MiB) was skipped.\n`);
    ctx.io.stdout.write(read.data);
    if (isTerminalState(job.lifecycle.state)) return followEnd(job);
    if (await readerLeftWithin(POLL_MS, readerGone)) return 0;
  }
}

/** Waits `ms`; true at once when the reader of the output went away meanwhile. */
function readerLeftWithin(ms: number, readerGone: AbortSignal): Promise<boolean> {
  if (readerGone.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onGone = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      readerGone.removeEventListener('abort', onGone);
      resolve(false);
    }, ms);
    readerGone.addEventListener('abort', onGone, { once: true });
  });
}

/**
 * The output after `from`; a damaged log (a segment that is not a regular file, a folder that is a
 * file) fails in one sentence naming the agent and the part.
 */
async function readOutput(store: JobStore, id: string, from: OutputPosition): Promise<OutputRead> {
  try {
    return await store.readOutputFrom(id, from);
  } catch (err) {
    if (isNotRegularFile(err)) throw failure(`The output of agent ${id} cannot be read: ${err.message}.`);
    if (isFsError(err)) throw failure(`${storeErrorWords(store.home, err)}.`);
    throw err;
  }
}

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

export default logsCommand;
