import { parseArgs } from 'node:util';
import { usageError } from '../../core/common/errors';
import { assertTextLength } from '../../core/common/textLimit';
import { WorkerClient } from '../../core/protocol/client';
import { MAX_INPUT_CHARS } from '../../core/protocol/messages';
import { JobStore } from '../../core/store';
import type { CliCommand } from '../command';

export const sendCommand: CliCommand = {
  name: 'send',
  usage: 'paddock send ID TEXT',
  summary: "Type TEXT and Enter into the agent's terminal.",
  async run(argv, ctx) {
    const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} });
    if (positionals.length !== 2) throw usageError('Usage: paddock send ID TEXT');
    const [id, text] = positionals;
    assertTextLength(text, MAX_INPUT_CHARS, 'text');
    const store = new JobStore({ home: JobStore.defaultHome(ctx.env) });
    const client = await WorkerClient.connect(store, id);
    try {
      await client.hello();
      await client.send(text);
    } finally {
      client.dispose();
    }
    return 0;
  },
};

export default sendCommand;
