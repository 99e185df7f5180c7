/** `paddock screen ID`: the agent's visible screen as plain text (its final screen once it has ended). */
import { join } from 'node:path';
import { failure } from '../../core/common/errors';
import { screenBlocker } from '../../core/operations/rules';
import { WorkerClient } from '../../core/protocol/client';
import { trimScreen } from '../../core/protocol/trimScreen';
import { isTerminalState, type JobStore } from '../../core/store';
import { isNotRegularFile, readRegularTextSync } from '../../core/store/regularFile';
import { FINAL_SCREEN_FILE } from '../../core/worker/finalScreen';
import { defineCommand } from '../support/args';
import { loadScreenText } from '../support/screenText';
import { openStore } from '../support/store';

export const screenCommand = defineCommand({
  name: 'screen',
  usage: 'paddock screen ID',
  summary: "Print the agent's current screen as plain text.",
  options: {},
  positionals: ['ID'],
  async run({ positionals: [id] }, ctx) {
    const store = openStore(ctx);
    const job = await store.read(id);
    const blocked = screenBlocker(job);
    if (blocked) throw failure(blocked);
    let lines: string[];
    if (isTerminalState(job.lifecycle.state)) {
      lines = finalScreen(store, id);
    } else {
      const client = await WorkerClient.connect(store, id).catch(async (err) => {
        // It may have ended between the read and the connect: its final screen is on disk then.
        if (isTerminalState((await store.read(id)).lifecycle.state)) return undefined;
        throw err;
      });
      if (!client) {
        lines = finalScreen(store, id);
      } else {
        try {
          // Read-only: looking at the screen must not resize the agent's terminal.
          const ready = await client.attach({ cols: 80, rows: 24, readOnly: true });
          lines = trimScreen(await loadScreenText().screenLines(ready.screen, ready.cols, ready.rows));
        } finally {
          client.detach();
          client.dispose();
        }
      }
    }
    ctx.io.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
    return 0;
  },
});

/** A screen far past any terminal's: more is not a saved screen. */
const MAX_SCREEN_BYTES = 16 * 1024 * 1024;

function finalScreen(store: JobStore, id: string): string[] {
  let text: string | null;
  try {
    text = readRegularTextSync(join(store.jobDir(id), FINAL_SCREEN_FILE), MAX_SCREEN_BYTES);
  } catch (err) {
    if (isNotRegularFile(err)) throw failure(`Agent ${id} has ended, but its final screen cannot be read: ${err.message}.`);
    throw failure(`Agent ${id} has ended and its final screen was not saved.`);
  }
  if (text === null) throw failure(`Agent ${id} has ended, but its final screen cannot be read: ${FINAL_SCREEN_FILE} is over 16 MB.`);
  return trimScreen(text.split('\n'));
}

export default screenCommand;
