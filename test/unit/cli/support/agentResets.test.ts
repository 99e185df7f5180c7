/**
 * The agent's RIS and DECSTR on `paddock attach`'s outer terminal: it stays on the alternate screen
 * the session runs on, shows what the agent's terminal shows, and gives the shell screen back.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Terminal } from '@xterm/headless';
import { AgentScreenSwitches, withoutScreenSwitches } from '../../../../src/cli/support/outerScreen';
import { FRESH_SCREEN_MODES, RESET_TERMINAL_MODES } from '../../../../src/core/protocol/terminalModes';
import { ScreenMirror } from '../../../../src/core/worker/mirror';
import { cellsOf } from '../../core/terminal/cells';
import { TmuxPane, waitUntil } from '../../core/worker/fixtures';

const [COLS, ROWS] = [20, 5];
const ENTER = '\x1b[?1049h';
const NEW_SCREEN = `${FRESH_SCREEN_MODES}\x1b[H\x1b[2J`;

/**
 * What `paddock attach` writes to the outer terminal when it attaches after `before` and the agent
 * then writes `after` (in chunks), with the fresh screen it asks for when the filter says so.
 */
async function attachedStream(before: string, ...after: string[]): Promise<string> {
  const m = new ScreenMirror({ cols: COLS, rows: ROWS });
  try {
    m.write(before);
    const switches = new AgentScreenSwitches();
    let out = ENTER + NEW_SCREEN + switches.snapshot((await m.snapshotAt()).screen, COLS);
    for (const chunk of after) {
      m.write(chunk);
      const { text, leftAlternate, softReset } = switches.filter(chunk);
      out += text;
      if (leftAlternate || softReset) out += NEW_SCREEN + switches.snapshot((await m.snapshotAt()).screen, COLS);
    }
    return out;
  } finally {
    m.dispose();
  }
}

/** What a fresh `paddock attach` draws of the agent's terminal after `bytes`. */
async function freshAttach(bytes: string): Promise<string> {
  const m = new ScreenMirror({ cols: COLS, rows: ROWS });
  try {
    m.write(bytes);
    return ENTER + NEW_SCREEN + withoutScreenSwitches((await m.snapshotAt()).screen, COLS);
  } finally {
    m.dispose();
  }
}

/** An xterm.js terminal (as the VS Code terminal or xterm) sent `chunks`. */
async function xtermAfter(...chunks: string[]): Promise<Terminal> {
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
  return term;
}

const TMUX_MODES = '#{alternate_on} #{origin_flag} #{insert_flag} #{wrap_flag} #{cursor_flag} #{keypad_cursor_flag} #{mouse_any_flag} #{scroll_region_upper},#{scroll_region_lower}';

/** What tmux shows (styled cells, cursor) and the modes it has after `bytes`. */
async function inTmux(bytes: string): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'pdk-resets-')), 'bytes');
  writeFileSync(file, `${bytes}\x1b]2;drawn\x07`);
  const pane = new TmuxPane(['sh', '-c', `cat '${file}'; exec sleep 600`], process.env, tmpdir(), COLS, ROWS);
  try {
    await waitUntil('the bytes drawn', () => pane.format('#{pane_title}') === 'drawn');
    return `${pane.captureStyled()}\n${pane.format(TMUX_MODES)}`;
  } finally {
    pane.dispose();
  }
}

describe("paddock attach: the agent's RIS and DECSTR on the outer terminal", function () {
  this.timeout(30_000);
  const before = 'agent\x1b[?2004h\x1b[?1000h\x1b[?1h\x1b[?25l\x1b[2;4r\x1b[31m\x1b[3;5H\x1b7';

  it('RIS keeps the outer terminal (xterm.js) on its alternate screen, shows the agent\'s fresh screen, and the shell screen comes back', async () => {
    const after = ['\x1bcAFTER\x1b[4;1H\x1b8X\x1b[5;1HY\x1bDZ'];
    const outer = await xtermAfter('shell-line\r\n', await attachedStream(before, ...after));
    try {
      assert.equal(outer.buffer.active.type, 'alternate', 'still on the session\'s screen');
      const agent = await cellsOf(COLS, ROWS, before + after.join(''));
      const shown = await cellsOf(COLS, ROWS, 'shell-line\r\n', await attachedStream(before, ...after));
      assert.equal(shown.replace(/ (normal|alternate)$/, ''), agent.replace(/ (normal|alternate)$/, ''));
      assert.equal(outer.modes.bracketedPasteMode, false);
      assert.equal(outer.modes.mouseTrackingMode, 'none');
      assert.equal(outer.modes.applicationCursorKeysMode, false);
      await new Promise<void>((resolve) => outer.write(RESET_TERMINAL_MODES, resolve));
      assert.equal(outer.buffer.active.getLine(0)?.translateToString(true), 'shell-line', 'the shell screen, untouched');
    } finally {
      outer.dispose();
    }
  });

  it('RIS cut between two chunks', async () => {
    const outer = await xtermAfter('shell-line\r\n', await attachedStream(before, 'x\x1b', 'cAFTER'));
    try {
      assert.equal(outer.buffer.active.type, 'alternate');
      assert.equal(outer.buffer.active.getLine(0)?.translateToString(true), 'AFTER');
    } finally {
      outer.dispose();
    }
  });

  for (const [title, after] of [
    ['RIS in tmux', ['\x1bcAFTER\x1b[4;1H\x1b8X']],
    ['DECSTR in tmux (which ignores it): margins, origin mode, insert mode, pen and saved cursor as the agent\'s', ['\x1b[?6h\x1b[4h\x1b[!p\x1b[5;1HX\x1b[1;1Hab\x1b8Y']],
    ['the same, DECSTR cut between two chunks', ['\x1b[?6h\x1b[4h\x1b[!', 'p\x1b[5;1HX\x1b[1;1Hab\x1b8Y']],
  ] as const) {
    it(`${title} shows what a fresh attach shows`, async () => {
      const [attached, fresh] = await Promise.all([inTmux(await attachedStream(before, ...after)), inTmux(await freshAttach(before + after.join('')))]);
      assert.equal(attached, fresh);
      assert.match(fresh, /\n1 0 0 1 1 0 \d \d,4$/, `on the alternate screen, the agent's modes reset: ${fresh}`);
    });
  }

  it('keeps auto-wrap off while the agent is wider than the outer terminal (rows cropped): the agent\'s ?7h, RIS and DECSTR', () => {
    const switches = new AgentScreenSwitches(COLS);
    switches.cropped = true;
    assert.equal(switches.filter('\x1b[?7h').text, '');
    assert.equal(switches.filter('\x1b[?7;25h').text, '\x1b[?25h');
    assert.ok(switches.filter('\x1bc').text.endsWith('\x1b[?7l'));
    assert.ok(switches.filter('\x1b[!p').text.endsWith('\x1b[?7l'));
    switches.cropped = false;
    assert.equal(switches.filter('\x1b[?7h').text, '\x1b[?7h');
  });
});
