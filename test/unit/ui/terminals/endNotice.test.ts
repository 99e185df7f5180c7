import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { endNotice } from '../../../../src/ui/terminals/endNotice';
import { AGENT_MODES_ON, outerTerminalState } from '../../core/protocol/outerTerminalState';

/** Writes to a real (headless) xterm.js, the emulator VS Code's terminal uses, and returns its visible lines. */
async function screen(...chunks: string[]): Promise<string[]> {
  const term = new Terminal({ cols: 80, rows: 12, allowProposedApi: true });
  for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
  const lines: string[] = [];
  const buffer = term.buffer.active;
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
  term.dispose();
  return lines.filter((l) => l !== '');
}

describe('the notice written when an agent ends', () => {
  it('comes on a fresh line after the output of a plain program, which stays whole', async () => {
    const lines = await screen('first line\r\nsecond line\r\nlast words', endNotice('the agent was killed by SIGTERM (cancelled).'));
    assert.deepEqual(lines, ['first line', 'second line', 'last words', '[paddock] the agent was killed by SIGTERM (cancelled).']);
  });

  it('comes after the shell output when the program had saved the cursor earlier', async () => {
    const lines = await screen('\x1b7prompt $ run\r\nworking\r\ndone', endNotice('the agent exited with code 0 (completed).'));
    assert.deepEqual(lines, ['prompt $ run', 'working', 'done', '[paddock] the agent exited with code 0 (completed).']);
  });

  it('comes after the normal screen when the program was killed on the alternate screen', async () => {
    const lines = await screen('before\r\n', '\x1b[?1049h\x1b[Hfull-screen app', endNotice('the agent was killed by SIGKILL (cancelled).'));
    assert.deepEqual(lines, ['before', '[paddock] the agent was killed by SIGKILL (cancelled).']);
  });

  it('is written in letters, not box pieces, after the program switched to DEC line drawing', async () => {
    // The notice saves the cursor, and leaving the alternate screen restores it: the character set in use comes back with it.
    const lines = await screen('box \x1b(0lqqk', endNotice('the agent exited with code 0 (completed).'));
    assert.deepEqual(lines, ['box ┌──┐', '[paddock] the agent exited with code 0 (completed).']);
  });

  it('leaves the terminal in a fresh terminal\'s modes, cursor shape and keypad included', async () => {
    const fresh = await outerTerminalState();
    assert.notDeepEqual(await outerTerminalState(AGENT_MODES_ON), fresh, 'the agent modes took effect');
    assert.deepEqual(await outerTerminalState(AGENT_MODES_ON, endNotice('the agent was killed by SIGTERM (cancelled).')), fresh);
  });
});
