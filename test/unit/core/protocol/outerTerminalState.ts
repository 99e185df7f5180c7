/**
 * The state a real terminal keeps from the bytes it was sent, read from a
 * headless xterm.js (the emulator VS Code's terminal uses): what a viewer must
 * leave as a fresh terminal has it when it stops showing an agent.
 */
import { Terminal } from '@xterm/headless';

/** Modes an agent may leave on when it is killed mid-screen: cursor shape, keypad, keys, mouse, paste, focus, wrap, insert. */
export const AGENT_MODES_ON =
  '\x1b[5 q\x1b=\x1b[?66h\x1b[?1h\x1b[?2004h\x1b[?1004h\x1b[?1003h\x1b[?25l\x1b[?7l\x1b[4h\x1b[?45h\x1b[3;20r\x1b[?6h\x1b[?1049h\x1b[2;10r';

/** xterm.js keeps the cursor shape and hidden flag in its core service, which has no public accessor. */
interface TerminalInternals {
  _core: {
    coreService: { decPrivateModes: Record<string, unknown>; isCursorHidden: boolean };
    buffers: { normal: { scrollTop: number; scrollBottom: number }; alt: { scrollTop: number; scrollBottom: number } };
  };
}

export async function outerTerminalState(...chunks: string[]): Promise<Record<string, unknown>> {
  const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true });
  try {
    for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
    const internals = (term as unknown as TerminalInternals)._core;
    const core = internals.coreService;
    const { normal } = internals.buffers;
    // The scroll margins of the screen the person is left on (xterm.js keeps them per buffer, not in its public API).
    return { ...term.modes, ...core.decPrivateModes, cursorHidden: core.isCursorHidden, buffer: term.buffer.active.type, margins: [normal.scrollTop, normal.scrollBottom] };
  } finally {
    term.dispose();
  }
}
