/**
 * The mirror's snapshot is only right if a viewer that draws it and then gets
 * the output after it ends with the same screen as the program's own terminal.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Terminal } from '@xterm/headless';
import { RESET_TERMINAL_MODES } from '../../../../src/core/protocol/terminalModes';
import { ScreenMirror } from '../../../../src/core/worker/mirror';
import { AGENT_MODES_ON, outerTerminalState } from '../protocol/outerTerminalState';
import { cellsBoth, cellsOf } from '../terminal/cells';
import { TmuxPane, waitUntil } from './fixtures';

const COLS = 40;
const ROWS = 12;

async function screenOf(...chunks: string[]): Promise<string[]> {
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < ROWS; y++) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
  lines.push(`cursor ${buffer.cursorX},${buffer.cursorY}`);
  term.dispose();
  return lines;
}

/** What the program's terminal shows after `before` + `after`, and what a viewer attaching between them shows. */
async function both(before: string, after: string): Promise<{ direct: string[]; viewer: string[] }> {
  const m = new ScreenMirror({ cols: COLS, rows: ROWS });
  try {
    m.write(before);
    const { screen } = await m.snapshotAt();
    return { direct: await screenOf(before, after), viewer: await screenOf(screen, after) };
  } finally {
    m.dispose();
  }
}

const rows = Array.from({ length: ROWS }, (_, i) => `row ${i + 1}`).join('\r\n');

describe('a viewer attaching mid-session ends with the same screen as the program', () => {
  it('keeps the scroll margins the program set: later lines scroll only that band', async () => {
    const { direct, viewer } = await both(`\x1b[2J\x1b[H${rows}\x1b[3;6r\x1b[8;5H`, '\x1b[6;1H\r\nscrolled 1\r\nscrolled 2\x1b[10;1Hafter');
    assert.deepEqual(viewer, direct);
    assert.equal(direct[2], 'row 5', 'the band scrolled');
  });

  it('keeps the cursor where it was with origin mode on inside the margins', async () => {
    const { direct, viewer } = await both(`\x1b[2J\x1b[H${rows}\x1b[4;9r\x1b[?6h\x1b[3;7H`, 'here\r\n\r\n\r\n\r\n\r\n\r\nlast');
    assert.deepEqual(viewer, direct);
  });

  it('on the alternate screen too', async () => {
    const { direct, viewer } = await both(`main\x1b[?1049h\x1b[H${rows}\x1b[2;4r\x1b[4;1H`, '\r\none\r\ntwo');
    assert.deepEqual(viewer, direct);
  });
});

/** Every mode tmux reports for a pane (tmux drops what it does not understand, such as DECNKM `?66h`). */
const TMUX_MODES = [
  'keypad_flag',
  'keypad_cursor_flag',
  'mouse_standard_flag',
  'mouse_button_flag',
  'mouse_any_flag',
  'mouse_sgr_flag',
  'cursor_flag',
  'insert_flag',
  'wrap_flag',
  'origin_flag',
  'alternate_on',
]
  .map((f) => `${f}=#{${f}}`)
  .join(' ');

/** What `read` says of a tmux pane of `cols`×`rows` that was sent `bytes`. */
async function inTmux(bytes: string, read: (pane: TmuxPane) => string, cols = 80, rows = 24): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'pdk-replay-')), 'bytes');
  writeFileSync(file, `${bytes}\x1b]2;drawn\x07`);
  const pane = new TmuxPane(['sh', '-c', `cat '${file}'; exec sleep 600`], process.env, tmpdir(), cols, rows);
  try {
    await waitUntil('the bytes drawn', () => pane.format('#{pane_title}') === 'drawn');
    return read(pane);
  } finally {
    pane.dispose();
  }
}

/** The modes of a tmux pane that was sent `bytes`. */
function tmuxModesAfter(bytes: string): Promise<string> {
  return inTmux(bytes, (pane) => pane.format(TMUX_MODES));
}

async function snapshotAfter(bytes: string, cols = 80, rows = 24): Promise<string> {
  const m = new ScreenMirror({ cols, rows });
  try {
    m.write(bytes);
    return (await m.snapshotAt()).screen;
  } finally {
    m.dispose();
  }
}

describe('a viewer attaching mid-session gets the modes the program set', function () {
  this.timeout(30_000);
  const agent = `${AGENT_MODES_ON}\x1b[?1006hready`.replace('\x1b[?66h', '');

  it('in tmux: keypad (set by ESC =), cursor keys, mouse, cursor, insert, wrap, alternate screen', async () => {
    const direct = await tmuxModesAfter(agent);
    assert.match(direct, /keypad_flag=1 keypad_cursor_flag=1/, 'the program set them');
    assert.equal(await tmuxModesAfter(await snapshotAfter(agent)), direct);
  });

  it('in xterm.js: the same, and the cursor shape', async () => {
    const direct = await outerTerminalState(agent);
    assert.equal(direct.cursorStyle, 'bar');
    assert.deepEqual(await outerTerminalState(await snapshotAfter(agent)), direct);
  });
});

/**
 * tmux, as the program's own terminal (sent `before` then `after`) and as a viewer (sent the
 * snapshot taken between them, then `after`): the output after a snapshot lands where, and prints
 * what, it does in the program's terminal only if the snapshot carried the state it depends on.
 */
async function inTmuxBoth(before: string, after: string): Promise<{ direct: string; viewer: string }> {
  const screen = await snapshotAfter(before, COLS, ROWS);
  const [direct, viewer] = await Promise.all([
    inTmux(before + after, (pane) => pane.captureStyled(), COLS, ROWS),
    inTmux(screen + after, (pane) => pane.captureStyled(), COLS, ROWS),
  ]);
  return { direct, viewer };
}

describe('a viewer attaching mid-session goes on as the program\'s terminal (tmux)', function () {
  this.timeout(30_000);
  const full = 'x'.repeat(COLS);

  const cases: [string, string, string][] = [
    ['restores the cursor the program saved (ESC 7), with its pen', 'status\x1b[31m\x1b7\x1b[0m\x1b[5;1Hbottom', '\x1b8 saved'],
    ['restores the cursor saved with CSI s', 'abc\x1b[s\x1b[6;3Hlow', '\x1b[uX'],
    ['draws on in DEC line drawing switched on with ESC ( 0', 'box \x1b(0', 'lqqk'],
    ['draws on in DEC line drawing shifted in from G1 (SO)', '\x1b)0\x0e', 'lqqk'],
    ['has DEC line drawing in G1 for a later SO', '\x1b)0text ', '\x0elqqk\x0f done'],
    ['tabs to the stops the program set', '\x1b[3g\x1b[4G\x1bH\x1b[13G\x1bH\r', '\tA\tB\tC'],
    ['keeps the cursor on the last column with auto-wrap off', `\x1b[?7l${full}`, 'YZ'],
    ['draws the alternate screen in its own colours, whatever pen the program holds', 'main\x1b[?1049h\x1b[Hplain\x1b[2;1H\x1b[31m', 'red'],
    ['restores the alternate screen\'s saved cursor', 'main\x1b[?1049h\x1b[3;3H\x1b7\x1b[H', '\x1b8X'],
    ['gives back the pen the switch to the alternate screen saved', '\x1b[32mgreen\x1b[?1049h\x1b[0malt', '\x1b[?1049l more'],
    ['keeps underline styles and colours, and dim next to bold', '\x1b[4:3;58;5;196mcurly\x1b[0m \x1b[21;58;2;1;2;3mdouble\x1b[0m \x1b[1;2mA\x1b[22;2mB', ' after'],
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await inTmuxBoth(before, after);
      assert.equal(viewer, direct);
    });
  }
});

describe('a viewer whose terminal saved a cursor of its own before the screen', () => {
  // The VS Code terminal's reconnect notice saves one (DECSC), and so does the mode reset before each screen.
  const ownSave = `old output\x1b[5;7H\x1b7${RESET_TERMINAL_MODES}\x1b[H\x1b[2J`;

  for (const [title, before] of [
    ['gets the empty slot of a program that never saved one', 'top\x1b[3;3Htext'],
    ['gets the cursor a program saved at the top left', '\x1b7top\x1b[3;3Htext'],
  ]) {
    it(title, async () => {
      const m = new ScreenMirror({ cols: 20, rows: 6 });
      try {
        m.write(before);
        const { screen } = await m.snapshotAt();
        assert.equal(await cellsOf(20, 6, ownSave, screen, '\x1b8X'), await cellsOf(20, 6, before, '\x1b8X'));
      } finally {
        m.dispose();
      }
    });
  }
});

describe('a viewer attaching mid-session gets the window title', () => {
  it('the program set (OSC 0 or 2), as a viewer attached before it was set has it', async () => {
    const screen = await snapshotAfter('\x1b]0;agent: working\x07text');
    const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true });
    try {
      let title = '';
      term.onTitleChange((t) => (title = t));
      await new Promise<void>((resolve) => term.write(screen, resolve));
      assert.equal(title, 'agent: working');
    } finally {
      term.dispose();
    }
  });
});


describe('a viewer attaching mid-session gets every cell as the program drew it (xterm.js)', () => {
  const cases: [string, string, string][] = [
    ['underline styles: double (4:2 and 21), curly, dotted, dashed', '\x1b[4:2ma\x1b[21mb\x1b[4:3mc\x1b[4:4md\x1b[4:5me\x1b[0m f', ''],
    ['underline colours (58;5, 58;2, and 59 back to the text\'s)', '\x1b[4;58;5;196mr\x1b[58;2;1;2;3mg\x1b[59md\x1b[0m', ''],
    ['the pen\'s underline style and colour, for what the program writes next', '\x1b[4:3;58;5;2mcurly ', 'more'],
    ['an underline colour set before the underline', '\x1b[58;5;3mplain ', '\x1b[4mlined'],
    ['hyperlinks (OSC 8), with and without an id, not turned into underlines', '\x1b]8;id=a;https://a.example/\x1b\\one\x1b]8;;\x1b\\ \x1b]8;;https://b.example/x;y\x07two\x1b]8;;\x07 three', ''],
    ['the hyperlink the program is writing in', 'see \x1b]8;;https://a.example/\x1b\\li', 'nk\x1b]8;;\x1b\\'],
    ['dim next to bold and dim, bold next to dim (SGR 22 turns off both)', '\x1b[1;2mA\x1b[22;2mB\x1b[0m \x1b[2mC\x1b[22;1mD\x1b[0m \x1b[1mE\x1b[2mF', 'G'],
    ['overline, strikethrough, invisible, blink, inverse on colours', '\x1b[53mo\x1b[0;9ms\x1b[0;8mi\x1b[0;5mb\x1b[0;7;31;44mr\x1b[0;7;38;2;9;8;7mR', ''],
    ['the alternate screen\'s cells, and the normal screen\'s for when the program leaves it', '\x1b[4:3mmain\x1b[0m\x1b[?1049h\x1b[4:4;58;5;9malt', '\x1b[?1049l'],
    ['a curly underline written up to the last column (the next character wraps)', '\x1b[1;17H\x1b[4:3mlast', 'X'],
    ['with insert mode on', '\x1b[4:3mab\x1b[0m\x1b[4h\x1b[1;1H', 'X'],
    ['with origin mode on inside margins', '\x1b[2;4r\x1b[?6h\x1b[2;3H\x1b[4:3mcurly', 'X\r\nY'],
    // Bug 106: a link kept for rows of both screens was opened on the alternate screen's only, and ended when the program left it.
    ['the hyperlink without an id the program is writing in, kept for a row of the normal screen and written in on the alternate one, after leaving it', '\x1b]8;;https://a.example/\x1b\\\x1b[T\x1b[?1049hTEXT', '\x1b[?1047lTEXT'],
    ['the same with an id', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[T\x1b[?1049hTEXT', '\x1b[?1047lTEXT'],
    ['the same with an id, a character not in it on the alternate screen', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[2;1H\x1b[?1049hA\x1b]8;;\x1b\\B\x1b]8;id=x;https://a.example/\x1b\\', '\x1b[?1047lTEXT'],
    ['the same without an id, nothing written in it on the alternate screen, the normal screen\'s row kept', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[?1049h', '\x1b[?1047lTEXT'],
    ['the same, a character written in it on the alternate screen in a curly underline (drawn again in it)', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[?1049h\x1b[4:3mTEXT', '\x1b[?1047lTEXT'],
    ['the same, the wrap pending after a character written in it on the alternate screen', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[?1049h\x1b[1;17HTEXT', 'X\x1b[?1047lTEXT'],
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await cellsBoth(before, after);
      assert.equal(viewer, direct);
    });
  }

  it('the alternate screen\'s own tab stops', async () => {
    const { direct, viewer } = await cellsBoth('\x1b[?1049h\x1b[3g\x1b[5G\x1bH\r', '\tX');
    assert.equal(viewer, direct);
    assert.match(direct, /^( [^|]*\|){4}X/, 'the tab went to column 5');
  });
});

describe('a viewer attaching mid-session goes on from where the program\'s next character lands (xterm.js)', () => {
  // After a character written in the last column, the next one wraps, and a move back starts from
  // the last column: no cursor movement gives that state, which programs are in after each full line.
  const cases: [string, string, string][] = [
    ['the next character wraps, with scroll margins set', '\x1b[2;4r\x1b[1;17HTEXT', 'X'],
    ['the next character wraps, with origin mode on', '\x1b[2;4r\x1b[?6h\x1b[1;17HTEXT', 'X'],
    ['the next character wraps, with insert mode on', '\x1b[4h\x1b[1;17HTEXT', 'X'],
    ['with auto-wrap off, the cursor past the last column (erasing from it erases nothing)', '\x1b[?7l\x1b[1;17HTEXT', '\x1b[K'],
    ['a move back (BS, CUB) from there starts from the last column', '\x1b[1;17HTEXT', '\bX\x1b[3DY'],
    ['the cursor moved back (the serializer\'s CUB) after a line written up to the last column', '\x1b[1;17HTEXT\x1b[1;2H', 'X'],
    ['a wide character written up to the last column', '\x1b[1;19H\u4e00', 'X'],
    ['the alternate screen entered with the next character wrapping (its row has no character)', '\x1b[1;17HTEXT\x1b[?1049h', 'X'],
    ['the screen erased with the next character wrapping', '\x1b[1;17HTEXT\x1b[2J', 'X'],
    ['the next character wraps, in DEC line drawing, after a letter it would have drawn as a line', '\x1b[1;17Hlast\x1b(0', 'q'],
    ['DEC line drawing in G0 after leaving the alternate screen, for the next SI', '\x1b[?1049h\x1b(0\x1b[?1049l', 'lq\x0flq'],
    ['DEC line drawing in use after ESC 8, ASCII in G0', '\x1b(0\x1b7\x1b(B\x1b8', 'lq\x0flq'],
    // Bug 78: the set in use apart from both the designated one and the shown screen's saved cursor's.
    ['ASCII in use after ESC 8 on the alternate screen left without restoring, DEC line drawing in G0 and in the saved cursor', '\x1b(0\x1b7\x1b[?1047h\x1b(B\x1b7\x1b(0\x1b8\x1b[?1047l', 'lq\x0flq\x1b8q'],
    ['DEC line drawing in use after ESC 8 on the alternate screen left without restoring, ASCII in G0 and in the saved cursor', '\x1b7\x1b[?1047h\x1b(0\x1b7\x1b(B\x1b8\x1b[?1047l', 'lq\x0flq\x1b8q'],
    ['the alternate screen\'s saved cursor after that, for when the program comes back', '\x1b7\x1b[?1047h\x1b[2;3H\x1b(0\x1b7\x1b(B\x1b8\x1b[?1047l', '\x1b[?1047h\x1b8q'],
    ['the same with G1 shifted in (SO), the wrap pending', '\x1b)0\x0e\x1b7\x1b[?1047h\x1b)B\x1b7\x1b)0\x1b8\x1b[?1047l\x1b[1;17Hlast', 'q\x0eq\x0fq'],
    ['the alternate screen entered without saving the cursor (?1047h), left restoring the one saved before', 'TEXT\x1b[?1047h', '\x1b[?1049lX'],
    ['a row continuing one erased since (the serializer\'s forced wrap leaves no dash)', `${'x'.repeat(25)}\x1b[1;1H\x1b[2K`, ''],
    ['a row continuing one, starting with a blank (the serializer moved over it on the row above)', `\x1b[1;17HWIDE\u4e00\bWIDE`, ''],
    ['the alternate screen\'s saved cursor, kept by xterm.js after leaving it, for when the program comes back', '\x1b[?1049h\x1b[3;5H\x1b[31m\x1b7\x1b[?1049l', '\x1b[?1049h\x1b8X'],
    ['the alternate screen entered in a background colour, erased since in another', '\x1b[44m\x1b[?1049h\x1b[0m\x1b[X', ''],
    ['the hyperlink the program is writing in, opened on a row kept when the cursor\'s is erased', '\x1b]8;;https://a.example/\x1b\\\x1b[2;1H', '\x1b[2;4r\x1b[JTEXT'],
    // Bug 95: a character over a wide character's second half in the last column (auto-wrap off); the serializer wrote it on the next row.
    ['a character written over the second half of a wide character in the last column, auto-wrap off', '\x1b[1;11HTEXTWIDE\u4e00\x1b[?7lWIDE\u4e00', ''],
    ['the same, the next character wrapping after it (written again)', '\x1b[1;11HTEXTWIDE\u4e00\x1b[?7lE', 'X\bY'],
    ['the same in a curly underline and a hyperlink, auto-wrap on again', '\x1b[1;11H\x1b[4:3mTEXTWIDE\u4e00\x1b[?7l\x1b]8;;https://a.example/\x1b\\E\x1b[?7h\x1b[2;1H', 'X'],
    ['a wide character dropped at the last column after one written up to it (a blank in the pen\'s background)', '\x1b[1;19H\u4e00\x1b[?7l\x1b[44m\u4e00\x1b[0m', ''],
    ['the same, auto-wrap on again', '\x1b[1;19H\u4e00\x1b[?7l\u4e00\x1b[?7h\x1b[2;1H', 'X'],
    // Bug 94: the set in use restored on the normal screen, carried onto the alternate one, apart from its designation and that screen's slot.
    ['DEC line drawing in use on the alternate screen, restored on the normal one, ASCII in G0 and in the alternate screen\'s slot', '\x1b(0\x1b7\x1b(B\x1b[?1047h\x1b[2;2H\x1b7\x1b[?1047l\x1b8\x1b[?1047h\x1b[3;1Hlqk AB\x1b[1;1H', 'lq\x0flq\x1b8lq'],
    ['ASCII in use there, DEC line drawing in G0 and in the alternate screen\'s slot', '\x1b[?1047h\x1b(0\x1b[2;5H\x1b7\x1b[?1047l\x1b(B\x1b7\x1b(0\x1b8\x1b[?1047hplain', 'lq\x0flq\x1b8lq'],
    ['the same with G1 shifted in (SO) and entered with ?1049h', '\x1b)0\x0e\x1b7\x1b)B\x1b[?1047h\x1b7\x1b[?1047l\x1b8\x1b[?1049hxy', 'lq\x0flq\x0elq\x1b8lq'],
    // Bug 93: a link without an id is one link for every row it was opened or written on; the viewer's was kept for one.
    ['the hyperlink without an id the program is writing in, kept for two rows, the cursor\'s deleted', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[1;1HTEXT', '\x1b[STEXT'],
    ['the same kept for three rows, two of them deleted', '\x1b[3;1H\x1b]8;;https://a.example/\x1b\\\x1b[1;1HA\x1b[2;5HB\x1b[1;3H', '\x1b[2;1H\x1b[M\x1b[1;1H\x1b[M\x1b[3;1HTEXT'],
    ['the same with the wrap pending after a character written in it (written again in it)', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[1;17HTEXT', '\x1b[M\x1b[1;1Hnext'],
    ['the same with an id, the wrap pending', '\x1b[2;1H\x1b]8;id=a;https://a.example/\x1b\\\x1b[1;17HTEXT', '\x1b[M\x1b[1;1Hnext'],
    ['the same with an id, opened again after a character not in it, the wrap pending', '\x1b[2;1H\x1b]8;id=a;https://a.example/\x1b\\\x1b]8;;\x1b\\\x1b[1;17HTEXT\x1b]8;id=a;https://a.example/\x1b\\', '\x1b[M\x1b[1;1Hnext'],
    ['a hyperlink with an id opened after a wide character written up to the last column (written again outside it)', '\x1b[1;15HWIDE\u4e00\x1b]8;id=x;https://a.example/\x1b\\', ''],
    ['a hyperlink without an id opened after a character, the wrap pending (it has the cursor\'s row only)', '\x1b[1;17HTEXT\x1b]8;;https://a.example/\x1b\\', 'next\x1b[M\x1b[1;1Hnext'],
    ['the same with a wide character in the last two columns of a row it is kept for, left as it is', '\x1b]8;;https://a.example/\x1b\\\x1b[3;19H\u4e00\x1b[2;1HYZ', '\x1b[1;1H\x1b[2M\x1b[4;1HTEXT'],
    // Bug 106: a link kept for rows of both screens was opened on the alternate screen's only, and ended when the program left it.
    ['the hyperlink without an id the program is writing in, kept for a row of the normal screen and written in on the alternate one, after leaving it', '\x1b]8;;https://a.example/\x1b\\\x1b[T\x1b[?1049hTEXT', '\x1b[?1047lTEXT'],
    ['the same with an id', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[T\x1b[?1049hTEXT', '\x1b[?1047lTEXT'],
    ['the same with an id, a character not in it on the alternate screen', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[2;1H\x1b[?1049hA\x1b]8;;\x1b\\B\x1b]8;id=x;https://a.example/\x1b\\', '\x1b[?1047lTEXT'],
    ['the same without an id, nothing written in it on the alternate screen, the normal screen\'s row kept', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[?1049h', '\x1b[?1047lTEXT'],
    ['the same, a character written in it on the alternate screen in a curly underline (drawn again in it)', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[?1049h\x1b[4:3mTEXT', '\x1b[?1047lTEXT'],
    ['the same, the wrap pending after a character written in it on the alternate screen', '\x1b[2;1H\x1b]8;;https://a.example/\x1b\\\x1b[?1049h\x1b[1;17HTEXT', 'X\x1b[?1047lTEXT'],
    // Bug 130: a link kept for a line of the scrollback (kept until it is trimmed) was opened on the screen's rows alone.
    ['the hyperlink without an id the program is writing in, kept only for a line of the scrollback (random programs, seed 4536)', '\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD', '\x1b[LTEXT'],
    ['the same with an id', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[4;1H\x1bD', '\x1b[LTEXT'],
    ['the same, written in on a row of the screen too, that row deleted', '\x1b]8;;https://a.example/\x1b\\A\x1b[4;1H\x1bDB', '\x1b[MTEXT'],
    ['the same, a cursor saved before (xterm.js counts its row with the scrollback) and restored after', '\x1b[3;3H\x1b[31m\x1b7\x1b[0m\x1b[1;1H\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD', '\x1b[LTEXT\x1b8\x1b]8;;\x1b\\X'],
    ['the same, scroll margins and origin mode set', '\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b[2;3r\x1b[?6h\x1b[2;1H', '\x1b[1;1H\x1b[MTEXT\x1b[?6l\x1b[4;1H\x1b[LX'],
    // Review found: the top row, the only blank one, was taken for the margins down to it (`CSI 1;1r`, ignored): IL shifted the whole screen.
    ['the same, only the top row blank (the viewer keeps every row, the link on its rows as before)', '\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b[2;1Hb\x1b[3;1Hc\x1b[4;1Hd', ''],
    // Review found: the same with the alternate screen shown (given the line before the snapshot's switch), and with the set in use restored by DECRC.
    ['the same, the alternate screen shown, left after the attach (?1049l)', '\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b[?1049h', '\x1b[?1049lTEXT'],
    ['the same, characters written in it on the alternate screen, left without restoring (?1047l)', '\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b[?1049hAB', '\x1b[?1047l\x1b[LTEXT'],
    ['the same with an id, left without restoring', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b[?1049h', '\x1b[?1047lTEXT'],
    ['the same with an id, kept for a row of each screen too, those deleted', '\x1b]8;id=x;https://a.example/\x1b\\A\x1b[4;1H\x1bD\x1b[2;1HB\x1b[?1049hCD', '\x1b[?1047l\x1b[1;1H\x1b[4MTEXT'],
    ['the same, the normal screen shown, the set in use (DEC line drawing) restored by ESC 8', '\x1b]8;;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b(0\x1b7\x1b(B\x1b8', '\x1b[LTEXT'],
    ['the same with G1 shifted in (SO), written in on a row too, restored again after', '\x1b]8;id=x;https://a.example/\x1b\\\x1b[4;1H\x1bD\x1b)0\x0e\x1b[2;2H\x1b7\x1b)B\x1b8', 'q\x1b[LTEXT\x1b8q'],
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await cellsBoth(before, after);
      assert.equal(viewer, direct);
    });
  }
});

describe('a viewer attaching mid-session after an erase the mirror does itself (xterm.js)', () => {
  // ED 1 at the last cell of a screen that has not scrolled throws in xterm.js (the mirror erases
  // there itself): the program's terminal is given the same erase as ED 1 one row up (which reads
  // a line that is there) and EL 1 on the last row.
  const eraseAbove = (selective: boolean) => (selective ? '\x1b[A\x1b[?1J\x1b[B\x1b[?1K' : '\x1b[A\x1b[1J\x1b[B\x1b[1K');
  for (const selective of [false, true]) {
    it(`the hyperlink kept only for the cursor's row after ED 1 there${selective ? ' (DECSED)' : ''} goes on in what the program writes next`, async () => {
      // Bug 78: the mirror erased as ED 2, which dropped that row's link; the viewer's next characters had none.
      const upTo = `top\x1b[4;1H\x1b]8;;https://a.example/\x1b\\${'x'.repeat(20)}`;
      const after = '\x1b[4;1Hnext';
      const m = new ScreenMirror({ cols: 20, rows: 4 });
      try {
        m.write(`${upTo}${selective ? '\x1b[?1J' : '\x1b[1J'}`);
        const { screen } = await m.snapshotAt();
        const direct = await cellsOf(20, 4, `${upTo}${eraseAbove(selective)}${after}`);
        assert.match(direct, /n[^|]*link/, 'the program writes in its link');
        assert.equal(await cellsOf(20, 4, screen, after), direct);
      } finally {
        m.dispose();
      }
    });
  }
});
