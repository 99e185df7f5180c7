import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { AgentScreenSwitches, withoutScreenSwitches } from '../../../../src/cli/support/outerScreen';
import { ScreenMirror } from '../../../../src/core/worker/mirror';

/** The first row of an xterm.js terminal sent `chunks`. */
async function firstRow(...chunks: string[]): Promise<string> {
  const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
  try {
    for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
    return term.buffer.active.getLine(0)?.translateToString(true) ?? '';
  } finally {
    term.dispose();
  }
}

describe('AgentScreenSwitches', () => {
  it('turns entering the alternate screen into a clear and drops leaving it, reporting it', () => {
    const f = new AgentScreenSwitches();
    assert.deepEqual(f.filter('a\x1b[?1049hb'), { text: 'a\x1b[H\x1b[2Jb', leftAlternate: false });
    assert.deepEqual(f.filter('c\x1b[?1049l'), { text: 'c', leftAlternate: true });
    assert.deepEqual(f.filter('\x1b[?25;47l'), { text: '\x1b[?25l', leftAlternate: true }, 'other modes in the same sequence stay');
    assert.deepEqual(f.filter('\x1b[?2004h'), { text: '\x1b[?2004h', leftAlternate: false });
  });

  it('recognises a switch cut between two chunks', () => {
    const f = new AgentScreenSwitches();
    assert.deepEqual(f.filter('x\x1b[?10'), { text: 'x', leftAlternate: false });
    assert.deepEqual(f.filter('49ly'), { text: 'y', leftAlternate: true });
  });

  it('makes a snapshot of the alternate screen draw without switching', () => {
    assert.equal(withoutScreenSwitches('main\x1b[?1049h\x1b[Halt'), 'main\x1b[H\x1b[2J\x1b[Halt');
  });

  it('draws a snapshot whose set in use comes back from the alternate screen\'s saved cursor on one screen, in that set', async () => {
    // Bug 78: the snapshot puts the set in use back through the alternate screen; its `?1047h` became a clear here.
    const m = new ScreenMirror({ cols: 20, rows: 4 });
    try {
      m.write('kept\x1b(0\x1b7\x1b[?1047h\x1b(B\x1b7\x1b(0\x1b8\x1b[?1047l');
      const { screen } = await m.snapshotAt();
      assert.ok(screen.includes('\x1b[?1047h'), 'the snapshot goes through the alternate screen');
      assert.equal(await firstRow(withoutScreenSwitches(screen), 'lq'), 'keptlq', 'not cleared, and ASCII in use');
    } finally {
      m.dispose();
    }
  });

  it('draws a snapshot whose set in use was carried onto the alternate screen in that set, on one screen, and restores that screen\'s saved cursor', async () => {
    // Bug 94: DEC line drawing in use, ASCII in G0 and in the alternate screen's slot (row 2, column 3, red).
    const m = new ScreenMirror({ cols: 20, rows: 4 });
    try {
      m.write('\x1b(0\x1b7\x1b(B\x1b[?1047h\x1b[2;3H\x1b[31m\x1b7\x1b[?1047l\x1b8\x1b[?1047hx\x1b[H');
      const { screen } = await m.snapshotAt();
      assert.equal(await firstRow(withoutScreenSwitches(screen), 'lq'), '\u250c\u2500', 'lines in use');
      // One slot for both screens: the carried set's ESC 7 overwrote the alternate screen's (an X at row 1, column 1, uncoloured).
      assert.equal(await savedCursorX(withoutScreenSwitches(screen), '\x1b8X'), 'X at 1,2 in red (1)');
    } finally {
      m.dispose();
    }
  });
});

/** Where an xterm.js terminal sent `chunks` shows an X, and in what colour. */
async function savedCursorX(...chunks: string[]): Promise<string> {
  const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
  try {
    for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
    for (let y = 0; y < 4; y++) {
      for (let x = 0; x < 20; x++) {
        const cell = term.buffer.active.getLine(y)?.getCell(x);
        if (cell?.getChars() === 'X') return `X at ${y},${x} in ${cell.isFgPalette() ? `red (${cell.getFgColor()})` : 'the default colour'}`;
      }
    }
    return 'no X';
  } finally {
    term.dispose();
  }
}
