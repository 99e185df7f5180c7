import { parseArgs } from 'node:util';
import { usageError } from '../../core/common/errors';
import { WorkerClient } from '../../core/protocol/client';
import { WaitingSignalSchema } from '../../core/protocol/messages';
import type { CliCommand } from '../command';

/**
 * Run inside an agent (e.g. from a Claude Code hook): tells the worker the
 * agent waits for the person, or works again. Uses the socket and the
 * signal-only token the worker put in the agent's environment.
 */
export const signalCommand: CliCommand = {
  name: 'signal',
  usage: 'paddock signal waiting|running',
  summary: 'From inside an agent: report that it waits for the person, or runs again.',
  async run(argv, ctx) {
    const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} });
    const state = WaitingSignalSchema.safeParse(positionals[0]);
    // Codex's notify program gets one JSON argument after the ones configured: accepted, not needed.
    const extraIsNotifyPayload = positionals.length === 2 && positionals[1].trimStart().startsWith('{');
    if ((positionals.length !== 1 && !extraIsNotifyPayload) || !state.success) throw usageError('Usage: paddock signal waiting|running');
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
};

export default signalCommand;
