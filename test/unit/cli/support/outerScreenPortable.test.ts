/**
 * `paddock attach` draws the agent's screen in whatever terminal the person uses (tmux, VTE,
 * kitty, iTerm…), not only xterm.js: its snapshot must not depend on what only xterm.js does.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Terminal } from '@xterm/headless';
import { AgentScreenSwitches, withoutScreenSwitches } from '../../../../src/cli/support/outerScreen';
import { ScreenMirror } from '../../../../src/core/worker/mirror';
import { TmuxPane, waitUntil } from '../../core/worker/fixtures';

const COLS = 20;
const ROWS = 4;

async function outerSnapshot(bytes: string): Promise<string> {
  return withoutScreenSwitches(await snapshotOf(bytes));
}

/** What tmux shows (cells with their attributes, and the cursor) after `bytes`. */
async function inTmux(bytes: string): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'pdk-outer-')), 'bytes');
  writeFileSync(file, `${bytes}\x1b]2;drawn\x07`);
  const pane = new TmuxPane(['sh', '-c', `cat '${file}'; exec sleep 600`], process.env, tmpdir(), COLS, ROWS);
  try {
    await waitUntil('the bytes drawn', () => pane.format('#{pane_title}') === 'drawn');
    return pane.captureStyled();
  } finally {
    pane.dispose();
  }
}

/**
 * A wide character written with auto-wrap off where it does not fit: the last column, or moved to
 * it. VTE and kitty draw it at the second-to-last column (over what is there); xterm.js and tmux drop it.
 */
const WIDE_AT_LAST_COLUMN = new RegExp(`(\\x1b\\[\\?7l|\\x1b\\[\\d+;${COLS}[Hf])[\\u1100-\\uffff]`);

describe('paddock attach: a snapshot any terminal draws as the agent\'s (bugs 93, 95, 106)', function () {
  this.timeout(30_000);
  const cases: [string, string][] = [
    ['a hyperlink without an id kept for two rows', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[1;1HTEXT'],
    ['the same kept for three rows, auto-wrap off', '\x1b[?7l\x1b[3;1H\x1b]8;;https://a.example/\x1b\\\x1b[1;1HA\x1b[2;5HB\x1b[1;3H'],
    ['the same with a wide character in the last two columns of a row it is kept for', '\x1b]8;;https://a.example/\x1b\\\x1b[3;19H\u4e00\x1b[2;1HYZ'],
    ['a hyperlink without an id kept for two rows of the normal screen, written in on the alternate one (bug 106)', '\x1b]8;;https://a.example/\x1b\\A\x1b[2;1HB\x1b[?1049h\x1b[3;1HTEXT'],
    ['a wide character dropped over the second half of one in the last column', '\x1b[1;19H\u4e00\x1b[?7l\x1b[44m\u4e00\x1b[0m'],
    ['the same, auto-wrap on again', '\x1b[1;19H\u4e00\x1b[?7l\u4e00\x1b[?7h\x1b[2;1H'],
  ];
  for (const [title, bytes] of cases) {
    it(title, async () => {
      const outer = await outerSnapshot(bytes);
      assert.doesNotMatch(outer, WIDE_AT_LAST_COLUMN, 'no wide character that only xterm.js and tmux drop');
      const [direct, viewer] = await Promise.all([inTmux(bytes), inTmux(outer)]);
      // The cursor after a dropped wide character is in the last column in xterm.js (the agent's mirror), past it in tmux.
      assert.equal(viewer.replace(/cursor .*$/, ''), direct.replace(/cursor .*$/, ''));
      assert.equal(await cursorOf(`\x1b[?1049h${outer}`), await cursorOf(bytes), 'the cursor where the agent\'s is');
    });
  }
});

describe('a snapshot for xterm.js in a terminal narrower than 3 columns', () => {
  it('adds no row to a hyperlink with a dropped wide character (no last two cells to check)', async () => {
    const m = new ScreenMirror({ cols: 1, rows: 3 });
    try {
      m.write('\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[1;1HT');
      assert.ok(!(await m.snapshotAt()).screen.includes('\u4e00'));
    } finally {
      m.dispose();
    }
  });
});

describe('paddock attach: the alternate screen\'s saved cursor with a set in use carried onto it (bug 94)', function () {
  this.timeout(30_000);
  it('restores the cursor and pen the agent saved there (ESC 8), not the normal screen\'s', async () => {
    const before = '\x1b(0\x1b[2;5H\x1b7\x1b(B\x1b[?1047h\x1b[3;7H\x1b[31m\x1b7\x1b[?1047l\x1b8\x1b[?1047h\x1b[1;1HAB';
    const after = '\x1b8X';
    const outer = await outerSnapshot(before);
    // The outer terminal is on its alternate screen for the whole session.
    const shown = `\x1b[?1049h${outer}${after}`;
    const redX = 'X red (1), cursor 7,2';
    assert.equal(await savedCursorUse(before + after), redX, 'the agent\'s terminal');
    assert.equal(await savedCursorUse(shown), redX, 'attach in xterm.js');
    // eslint-disable-next-line no-control-regex -- tmux writes its attributes as escapes
    assert.match(await inTmux(shown), /\n\n[^\n]*? {6}\x1b\[31mX\n\ncursor 7,2$/, 'attach in tmux');
  });
});

describe('paddock attach: saved cursors around a hyperlink carried onto the alternate screen', function () {
  this.timeout(30_000);
  const LINK = '\x1b]8;;https://a.example/\x1b\\';
  it('restores the alternate screen\'s (ESC 8 there), not the normal screen\'s saved outside the link', async () => {
    const before = `\x1b[?1047h\x1b[3;7H\x1b[31m\x1b7\x1b[0m\x1b[?1047l\x1b[2;2H\x1b7${LINK}AB\x1b[?1047hTEXT`;
    const after = '\x1b8X';
    const redX = 'X red (1), cursor 7,2';
    assert.equal(await savedCursorUse(before + after), redX, 'the agent\'s terminal');
    const shown = `\x1b[?1049h${await outerSnapshot(before)}${after}`;
    assert.equal(await savedCursorUse(shown), redX, 'attach in xterm.js');
    // eslint-disable-next-line no-control-regex -- tmux writes its attributes as escapes
    assert.match(await inTmux(shown), /\n[^\n]*\n {6}\x1b\[31mX\n\ncursor 7,2$/, 'attach in tmux');
  });

  // The placeholder link only xterm.js's saves need (bug 145): a terminal whose ESC 7 saves the pen's
  // link itself (WezTerm, Contour) would give the agent's text after a restore an about:blank link.
  const cases: [string, string][] = [
    ['ESC 7 in a hyperlink', `${LINK}A\x1b7\x1b[3;1HB`],
    ['ESC 7 with an underline style', '\x1b[4:3mA\x1b7\x1b[0m\x1b[3;1HB'],
    ['?1049h with an underline style', '\x1b[4:3mA\x1b[0m\x1b[4:3m\x1b[?1049h\x1b[0mALT'],
  ];
  for (const [title, bytes] of cases) {
    it(`sends no placeholder link: ${title}`, async () => {
      const screen = await snapshotOf(bytes);
      assert.match(screen, /about:blank/, 'the snapshot for xterm.js has it');
      // What `paddock attach` writes to the person's terminal.
      assert.doesNotMatch(new AgentScreenSwitches(COLS).snapshot(screen, COLS), /about:blank|paddock-saved-pen/);
    });
  }
  // The save the placeholder surrounded is still sent: the agent's ESC 8 lands where the agent's terminal puts it.
  for (const [title, bytes] of cases.filter(([, b]) => b.includes('\x1b7'))) {
    it(`still saves the cursor without the placeholder: ${title}`, async () => {
      const agent = await cursorOf(`${bytes}\x1b8`);
      const shown = `\x1b[?1049h${await outerSnapshot(bytes)}\x1b8`;
      assert.doesNotMatch(shown, /about:blank|paddock-saved-pen/);
      assert.equal(await cursorOf(shown), agent, 'attach in xterm.js');
      const [x, y] = agent.split(',');
      assert.match(await inTmux(shown), new RegExp(`cursor ${x},${y}$`), 'attach in tmux');
    });
  }
});

/** The worker's snapshot of a screen sent `bytes`. */
async function snapshotOf(bytes: string): Promise<string> {
  const m = new ScreenMirror({ cols: COLS, rows: ROWS });
  try {
    m.write(bytes);
    return (await m.snapshotAt()).screen;
  } finally {
    m.dispose();
  }
}

/** The cursor of an xterm.js terminal sent `bytes`. */
async function cursorOf(bytes: string): Promise<string> {
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => term.write(bytes, resolve));
    return `${term.buffer.active.cursorX},${term.buffer.active.cursorY}`;
  } finally {
    term.dispose();
  }
}

/** The character xterm.js shows at row 3, column 7, its palette colour, and the cursor after `bytes`. */
async function savedCursorUse(bytes: string): Promise<string> {
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => term.write(bytes, resolve));
    const cell = term.buffer.active.getLine(2)?.getCell(6);
    const colour = cell?.isFgPalette() ? `red (${cell.getFgColor()})` : 'default';
    return `${cell?.getChars()} ${colour}, cursor ${term.buffer.active.cursorX},${term.buffer.active.cursorY}`;
  } finally {
    term.dispose();
  }
}
