import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { AgentScreenSwitches, withoutScreenSwitches } from '../../../../src/cli/support/outerScreen';
import { FRESH_SCREEN_MODES } from '../../../../src/core/protocol/terminalModes';
import { ScreenMirror } from '../../../../src/core/worker/mirror';
import { cellsOf } from '../../core/terminal/cells';

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
    assert.deepEqual(f.filter('a\x1b[?1049hb'), { text: 'a\x1b[r\x1b[H\x1b[2Jb', leftAlternate: false, softReset: false });
    assert.deepEqual(f.filter('c\x1b[?1049l'), { text: 'c', leftAlternate: true, softReset: false });
    assert.deepEqual(f.filter('\x1b[?25;47l'), { text: '\x1b[?25l', leftAlternate: true, softReset: false }, 'other modes in the same sequence stay');
    assert.deepEqual(f.filter('\x1b[?2004h'), { text: '\x1b[?2004h', leftAlternate: false, softReset: false });
  });

  it('bug 222: takes the 8-bit CSI (U+009B) as xterm.js does: its switches, soft reset and window changes are the agent\'s too', () => {
    const f = new AgentScreenSwitches();
    assert.deepEqual(f.filter('a\x9b?1049hb'), { text: 'a\x1b[r\x1b[H\x1b[2Jb', leftAlternate: false, softReset: false });
    assert.deepEqual(f.filter('c\x9b?25;10'), { text: 'c', leftAlternate: false, softReset: false }, 'held for the next chunk');
    assert.deepEqual(f.filter('49l'), { text: '\x1b[?25l', leftAlternate: true, softReset: false });
    assert.equal(f.filter('\x9b!p').softReset, true);
    assert.equal(f.filter('d\x9b22;0te\x9b18t').text, 'de\x9b18t');
  });

  it('bug 222: an agent leaving its screen with the 8-bit CSI leaves the outer xterm.js on the session\'s alternate screen', async () => {
    const outer = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
    try {
      const f = new AgentScreenSwitches();
      for (const chunk of ['\x1b[?1049h', f.filter('\x9b?1049hvim').text, f.filter('\x9b?1049lshell').text]) await new Promise<void>((resolve) => outer.write(chunk, resolve));
      assert.equal(outer.buffer.active.type, 'alternate');
    } finally {
      outer.dispose();
    }
  });

  it('recognises a switch cut between two chunks', () => {
    const f = new AgentScreenSwitches();
    assert.deepEqual(f.filter('x\x1b[?10'), { text: 'x', leftAlternate: false, softReset: false });
    assert.deepEqual(f.filter('49ly'), { text: 'y', leftAlternate: true, softReset: false });
  });

  it("keeps the agent's title stack and window changes from the outer terminal, as the agent's xterm.js ignores them; reports pass", () => {
    const f = new AgentScreenSwitches();
    assert.equal(f.filter('a\x1b[22;0tb\x1b[23;2tc\x1b[8;50;100td\x1b[2te').text, 'abcde');
    assert.equal(f.filter('\x1b[18t\x1b[14;2t').text, '\x1b[18t\x1b[14;2t');
    assert.equal(f.filter('x\x1b[2').text, 'x', 'held for the next chunk');
    assert.equal(f.filter('3;0ty').text, 'y');
    assert.equal(f.filter('\x1b[3').text, '');
    assert.equal(f.filter('1mz').text, '\x1b[31mz', 'other sequences cut between chunks come whole');
  });

  it('makes a snapshot of the alternate screen draw without switching', () => {
    assert.equal(withoutScreenSwitches('main\x1b[?1049h\x1b[Halt'), 'main\x1b[r\x1b[H\x1b[2J\x1b[Halt');
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

describe('paddock attach: what the agent\'s terminal keeps for each screen, on the outer terminal\'s one screen (bug 107)', () => {
  /** The first row of the agent's terminal after `before` and `chunks`, and of the outer terminal attached between them. */
  async function bothFirstRows(before: string, ...chunks: string[]): Promise<{ direct: string; attached: string }> {
    const m = new ScreenMirror({ cols: 20, rows: 4 });
    try {
      m.write(before);
      const { screen } = await m.snapshotAt();
      const switches = new AgentScreenSwitches();
      const drawn = switches.snapshot(screen, 20);
      const later = chunks.map((chunk) => switches.filter(chunk).text);
      return { direct: await firstRow(before + chunks.join('')), attached: await firstRow('\x1b[?1049h', drawn, ...later) };
    } finally {
      m.dispose();
    }
  }
  // DEC line drawing in G0, restored into use on the normal screen with ASCII shifted in from G1, carried onto the alternate one.
  const carried = '\x1b(0\x1b[?1049h\x0e\x1b[?1049l\x1b[?1047h';
  // ASCII restored into use from the alternate screen's slot on the normal screen, DEC line drawing in G0 (owed after the snapshot).
  const restored = 'kept\x1b(0\x1b7\x1b[?1047h\x1b(B\x1b7\x1b(0\x1b8\x1b[?1047l';
  const cases: [string, string, string[], string][] = [
    ['SI then SO, on the alternate screen the set in use was carried onto', carried, ['q\x0fq\x0eq'], '\u2500\u2500q'],
    ['the same, ESC 8 (the alternate screen\'s slot, ASCII) then SO', carried, ['q\x1b8q\x0eq'], 'qq'],
    ['the same, ESC and 8 in two chunks', carried, ['q\x1b', '8q\x0eq'], 'qq'],
    ['the same, the agent designating G1 itself (DEC line drawing) before SO', carried, ['q\x1b)0\x0eq'], '\u2500\u2500'],
    ['the same, the agent\'s designation of G1 cut between two chunks', carried, ['q\x1b)', '0\x0eq'], '\u2500\u2500'],
    ['the same, G0 designated by the agent (G1 still owed) before SI and SO', carried, ['q\x1b(B\x0fq\x0eq'], '\u2500qq'],
    // The alternate screen's own margins and tab stops, a fresh terminal's in xterm.js: the outer terminal kept the main screen's.
    ['a row addressed with origin mode on, on the alternate screen entered after margins set on the main one (a snapshot)', '\x1b[2;4r\x1b[?1049h\x1b[?6h', ['\x1b[1;1HX'], 'X'],
    ['the same, entered after the attach', '\x1b[2;4r', ['\x1b[?1049h\x1b[?6h\x1b[1;1HX'], 'X'],
    ['a tab on the alternate screen entered after the main screen\'s stops were cleared (a snapshot)', '\x1b[3g\x1b[?1049h', ['\tX'], '        X'],
    ['the same, entered after the attach', '\x1b[3g', ['\x1b[?1049h\tX'], '        X'],
    ['SO on the normal screen after a set in use restored from the alternate screen\'s slot', restored, ['lq\x0flq\x0elq'], 'keptlq\u250c\u2500lq'],
    // Nothing owed after RIS or DECSTR, which put ASCII in every G-set (the owed DEC line drawing was written before the SO).
    ['the same, RIS then SO and SI', restored, ['\x1bc\x0e\x0fq'], 'q'],
    ['the same, DECSTR then SO and SI', restored, ['\x1b[!p\x0e\x0fq'], 'keptq'],
    ['the same, DECSTR cut between two chunks', restored, ['\x1b[!', 'p\x0e\x0fq'], 'keptq'],
    ['bug 222: the same, DECSTR with the 8-bit CSI (U+009B)', restored, ['\x9b!p\x0e\x0fq'], 'keptq'],
    // A switch to the alternate screen the agent is on: xterm.js ignores it, keeping that screen's margins and stops.
    ['origin mode after entering the alternate screen again, with margins set on it (a snapshot)', '\x1b[?1049h\x1b[2;3r', ['\x1b[?1049h\x1b[?6h\x1b[1;1HX'], ''],
    ['the same, entered and set after the attach', '', ['\x1b[?1049h\x1b[2;3r', '\x1b[?1049h\x1b[?6h\x1b[1;1HX'], ''],
    ['a tab after entering the alternate screen again, its stops cleared (a snapshot)', '\x1b[?1049h\x1b[3g', ['\x1b[?47h\tX'], '                   X'],
    ['the same, after RIS (which puts the agent\'s terminal back on its normal screen) and margins set', '\x1b[?1049h', ['\x1bc\x1b[2;3r\x1b[?1049h\x1b[?6h\x1b[1;1HX'], 'X'],
    // ... but `?1049h` still saves the cursor, in the alternate screen's slot.
    ['ESC 8 after entering the alternate screen again with ?1049h', '\x1b[?1049h\x1b[2;3H\x1b7\x1b[1;1H', ['\x1b[?1049h\x1b[2;1H\x1b8X'], 'X'],
  ];
  for (const [title, before, chunks, shown] of cases) {
    it(title, async () => {
      const { direct, attached } = await bothFirstRows(before, ...chunks);
      assert.equal(direct, shown, 'the agent\'s terminal');
      assert.equal(attached, direct);
    });
  }
});

describe('paddock attach: each snapshot drawn from ASCII in every G-set', () => {
  it('leaves no G-set a snapshot designated for the next one (a resync after output the viewer skipped)', async () => {
    const m = new ScreenMirror({ cols: 20, rows: 4 });
    try {
      const newScreen = FRESH_SCREEN_MODES + '\x1b[H\x1b[2J';
      const switches = new AgentScreenSwitches();
      const drawn: string[] = ['\x1b[?1049h'];
      for (const skipped of ['\x1b)0\x1b*0\x1b+0', '\x1b)B\x1b*B\x1b+B']) {
        m.write(skipped);
        drawn.push(newScreen + switches.snapshot((await m.snapshotAt()).screen, 20));
      }
      const later = 'q\x0eq\x1bnq\x1boq';
      assert.equal(await firstRow(...drawn, switches.filter(later).text), 'qqqq', 'ASCII in G0–G3, as in the agent\'s terminal');
    } finally {
      m.dispose();
    }
  });
});

describe('paddock attach: a snapshot in a terminal shorter than the agent', () => {
  it("keeps every row it shows when the pen's link is kept for a line of the agent's scrollback (no scrollback line is made there)", async () => {
    const m = new ScreenMirror({ cols: 20, rows: 8 });
    const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
    try {
      // Review found (bug 130): the replay's margins (1;8) and cursor were clamped to row 4: IL and LF scrolled "four" away.
      m.write('\x1b]8;;https://a.example/\x1b\\\x1b[8;1H\x1bD\x1b[1;1Hone\r\ntwo\r\nthree\r\nfour');
      const screen = withoutScreenSwitches((await m.snapshotAt()).screen, 20);
      assert.ok(!screen.includes('\x1b[L'), 'no IL');
      await new Promise<void>((resolve) => term.write(`\x1b[?1049h${FRESH_SCREEN_MODES}\x1b[H\x1b[2J${screen}`, resolve));
      const rows = [0, 1, 2, 3].map((y) => term.buffer.active.getLine(y)?.translateToString(true));
      assert.deepEqual(rows, ['one', 'two', 'three', 'four']);
    } finally {
      term.dispose();
      m.dispose();
    }
  });

  it('leaves the pen\'s link open that the scrollback line opened (no row of the screen kept for it): the next characters are in it', async () => {
    const m = new ScreenMirror({ cols: 20, rows: 8 });
    try {
      m.write('\x1b]8;;https://a.example/\x1b\\\x1b[8;1H\x1bD');
      const screen = withoutScreenSwitches((await m.snapshotAt()).screen, 20);
      const cells = await cellsOf(20, 4, `\x1b[?1049h${FRESH_SCREEN_MODES}\x1b[H\x1b[2J${screen}`, 'TEXT');
      assert.match(cells, /T[^|]*link \{"uri":"https:\/\/a\.example\/"\}/, cells);
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

describe('paddock attach: a snapshot in a terminal narrower than the agent', () => {
  it("leaves auto-wrap off while cropped: the snapshot's own ?7h (what is left of a link's added rows) does not turn it on (bug 131)", async () => {
    const m = new ScreenMirror({ cols: 20, rows: 4 });
    const term = new Terminal({ cols: 10, rows: 4, allowProposedApi: true });
    try {
      // A link without an id on two rows: the snapshot adds the second to it with auto-wrap off, then on again.
      m.write(`\x1b]8;;https://a.example/\x1b\\${'a'.repeat(15)}\r\n${'b'.repeat(15)}`);
      const switches = new AgentScreenSwitches();
      switches.cropped = true;
      const drawn = switches.snapshot((await m.snapshotAt()).screen, 20);
      const live = switches.filter(`\r\n${'c'.repeat(15)}`).text;
      await new Promise<void>((resolve) => term.write(`\x1b[?1049h${FRESH_SCREEN_MODES}\x1b[H\x1b[2J\x1b[?7l${drawn}${live}`, resolve));
      const rows = [0, 1, 2, 3].map((y) => term.buffer.active.getLine(y)?.translateToString(true));
      assert.deepEqual(rows, ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', '']);
      assert.equal(term.modes.wraparoundMode, false);
    } finally {
      term.dispose();
      m.dispose();
    }
  });
});
