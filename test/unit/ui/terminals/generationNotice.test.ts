import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { RESET_TERMINAL_MODES } from '../../../../src/core/protocol/terminalModes';
import { CLEAR_VIEW, newGenerationNotice } from '../../../../src/ui/terminals/generationNotice';
import { endNotice } from '../../../../src/ui/terminals/endNotice';

const ROWS = 6;

/** Writes to a real (headless) xterm.js; returns its scrollback and its view, blank lines dropped. */
async function terminal(...chunks: string[]): Promise<{ scrollback: string[]; view: string[] }> {
  const term = new Terminal({ cols: 80, rows: ROWS, allowProposedApi: true });
  for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
  const buffer = term.buffer.active;
  const line = (i: number) => buffer.getLine(i)?.translateToString(true) ?? '';
  const scrollback = Array.from({ length: buffer.baseY }, (_, i) => line(i)).filter((l) => l !== '');
  const view = Array.from({ length: ROWS }, (_, i) => line(buffer.baseY + i)).filter((l) => l !== '');
  term.dispose();
  return { scrollback, view };
}

describe('a terminal reconnected to a new generation of its agent (bug 168)', () => {
  it('keeps the old run\'s screen above one dim line that says so, and draws the new screen below', async () => {
    // The old run left a scroll region, mouse reporting and a hidden cursor on: kept, its lines would not scroll away.
    const oldRun = '\x1b[?1000h\x1b[?25l\x1b[Hold run: line 1\r\nold run: line 2\x1b[2;4r\x1b[3;5H';
    const newScreen = `${RESET_TERMINAL_MODES}${CLEAR_VIEW}\x1b[Hnew run: ready`;
    const { scrollback, view } = await terminal(oldRun, newGenerationNotice(ROWS, 1, 2), newScreen);
    assert.deepEqual(view, ['new run: ready']);
    assert.deepEqual(scrollback, ['old run: line 1', 'old run: line 2', "[paddock] generation 2 started (a retry); generation 1's output is above."]);
  });

  it('on a plain (not full-screen) run, the old run\'s lines stay in the scrollback, in order', async () => {
    const { scrollback, view } = await terminal('old 1\r\nold 2\r\nold 3', newGenerationNotice(ROWS, 3, 4), `${CLEAR_VIEW}new`);
    assert.deepEqual(scrollback, ['old 1', 'old 2', 'old 3', "[paddock] generation 4 started (a retry); generation 3's output is above."]);
    assert.deepEqual(view, ['new']);
  });

  it('on a full-screen run, says truly that its output (not its last screen) is above: the alternate screen was left', async () => {
    // As the terminal writes it: the old run draws on the alternate screen, the lost connection's
    // notice leaves it (its last screen goes with it), then the new generation's notice and screen.
    const oldRun = 'shell before\r\n\x1b[?1049h\x1b[H\x1b[2JTUI: old run last screen\r\nTUI: status';
    const lost = endNotice('connection lost (worker gone); reconnecting…');
    const { scrollback, view } = await terminal(oldRun, lost, newGenerationNotice(ROWS, 1, 2), `${RESET_TERMINAL_MODES}${CLEAR_VIEW}\x1b[Hnew run: ready`);
    assert.deepEqual(view, ['new run: ready']);
    assert.ok(!scrollback.some((l) => l.startsWith('TUI:')), JSON.stringify(scrollback));
    assert.deepEqual(scrollback, [
      'shell before',
      '[paddock] connection lost (worker gone); reconnecting…',
      "[paddock] generation 2 started (a retry); generation 1's output is above.",
    ]);
  });
});
