/** `paddock attach ID [--read-only]`: the agent's live terminal here; Ctrl-\ detaches and the agent keeps running. */
import { StringDecoder } from 'node:string_decoder';
import { failure } from '../../core/common/errors';
import { WorkerClient } from '../../core/protocol/client';
import { RESET_TERMINAL_MODES } from '../../core/protocol/terminalModes';
import type { CliContext } from '../command';
import { defineCommand } from '../support/args';
import { openStore } from '../support/store';

/** Ctrl-\ : detaches (like dtach's default). Ctrl-C goes to the agent. */
export const DETACH_BYTE = 0x1c;
const CLEAR = '\x1b[H\x1b[2J';

type Ending = { kind: 'detached' } | { kind: 'exited'; code: number | null; signal: string | null; state: string } | { kind: 'lost'; reason?: string };

export const attachCommand = defineCommand({
  name: 'attach',
  usage: 'paddock attach ID [--read-only]',
  summary: "Show the agent's live terminal here; Ctrl-\\ detaches and the agent keeps running.",
  options: { 'read-only': { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const readOnly = values['read-only'] === true;
    const client = await WorkerClient.connect(openStore(ctx), id);
    try {
      const ending = await view(client, ctx, readOnly);
      return report(ending, id, ctx);
    } finally {
      client.dispose();
    }
  },
});

async function view(client: WorkerClient, ctx: CliContext, readOnly: boolean): Promise<Ending> {
  const { stdin, stdout } = ctx.io;
  const size = () => ({ cols: clamp(stdout.columns ?? 80, 2, 1000), rows: clamp(stdout.rows ?? 24, 2, 500) });
  const ready = await client.attach({ ...size(), readOnly });
  stdout.write(CLEAR + ready.screen);
  if (ready.exit) return { kind: 'exited', code: ready.exit.code, signal: ready.exit.signal, state: ready.state };

  const raw = stdin.isTTY && typeof stdin.setRawMode === 'function';
  const decoder = new StringDecoder('utf8');
  return new Promise<Ending>((resolve) => {
    let ended = false;
    const subscriptions = [
      client.onDidOutput((data) => stdout.write(data)),
      client.onDidReady((fresh) => stdout.write(CLEAR + fresh.screen)),
      client.onDidExit((e) => finish({ kind: 'exited', code: e.code, signal: e.signal, state: e.state })),
      client.onDidClose((e) => finish({ kind: 'lost', reason: e.reason })),
    ];
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const at = buf.indexOf(DETACH_BYTE);
      const before = at >= 0 ? buf.subarray(0, at) : buf;
      if (before.length > 0 && !readOnly) client.input(decoder.write(before));
      if (at >= 0) {
        client.detach();
        finish({ kind: 'detached' });
      }
    };
    const onResize = () => {
      const s = size();
      client.resize(s.cols, s.rows);
    };
    const onEnd = () => {
      client.detach();
      finish({ kind: 'detached' });
    };
    function finish(ending: Ending): void {
      if (ended) return;
      ended = true;
      for (const s of subscriptions) s.dispose();
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      process.off('SIGWINCH', onResize);
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
      stdout.write(RESET_TERMINAL_MODES);
      resolve(ending);
    }
    if (raw) stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
    if (!readOnly) process.on('SIGWINCH', onResize);
  });
}

function report(ending: Ending, id: string, ctx: CliContext): number {
  const out = ctx.io.stderr;
  switch (ending.kind) {
    case 'detached':
      out.write(`\r\nDetached from agent ${id}; it keeps running. Re-attach with: paddock attach ${id}\r\n`);
      return 0;
    case 'exited': {
      const how = ending.signal ? `was killed by ${ending.signal}` : `exited with code ${ending.code ?? 'unknown'}`;
      out.write(`\r\nAgent ${id} ${how} (${ending.state}).\r\n`);
      return 0;
    }
    case 'lost':
      throw failure(`Lost the connection to agent ${id}'s worker${ending.reason ? `: ${ending.reason}` : ''}.`);
  }
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(n) || min));
}

export default attachCommand;
