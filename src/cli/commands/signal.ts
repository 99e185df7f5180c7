import { usageError } from '../../core/common/errors';
import { WorkerClient } from '../../core/protocol/client';
import { WaitingSignalSchema } from '../../core/protocol/messages';
import { defineCommand } from '../support/args';

/**
 * Run inside an agent (e.g. from a Claude Code hook): tells the worker the
 * agent waits for the person, or works again. Uses the socket and the
 * signal-only token the worker put in the agent's environment.
 */
export const signalCommand = defineCommand({
  name: 'signal',
  usage: 'paddock signal waiting|running [NOTIFY-JSON]',
  summary: 'From inside an agent: report that it waits for the person, or runs again.',
  options: {},
  positionals: ['STATE'],
  // Codex's notify program is called with one JSON argument after the configured ones: accepted, not needed.
  optional: 'NOTIFY-JSON',
  async run({ positionals: [given], optional, bad }, ctx) {
    const state = WaitingSignalSchema.safeParse(given);
    if (!state.success) throw bad(`The state is waiting or running, not '${given}'`);
    if (optional !== undefined && !optional.trimStart().startsWith('{')) throw bad(`Unexpected argument '${optional}'`);
    const socket = ctx.env.PADDOCK_SOCKET;
    const token = ctx.env.PADDOCK_AGENT_TOKEN;
    if (!socket || !token) throw usageError('paddock signal works only inside a Paddock agent (PADDOCK_SOCKET is not set).');
    const client = await WorkerClient.connectToSocket(socket, token, { connectTimeoutMs: 2000, requestTimeoutMs: 5000 });
    try {
      await client.hello();
      await client.signal(state.data);
    } finally {
      client.dispose();
    }
    return 0;
  },
});

export default signalCommand;
