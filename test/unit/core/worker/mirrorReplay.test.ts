/**
 * The mirror's snapshot is only right if a viewer that draws it and then gets
 * the output after it ends with the same screen as the program's own terminal.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { Terminal } from '@xterm/headless';
import { ScreenMirror } from '../../../../src/core/worker/mirror';
import { AGENT_MODES_ON, outerTerminalState } from '../protocol/outerTerminalState';
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
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await inTmuxBoth(before, after);
      assert.equal(viewer, direct);
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

/** Every cell (character, colours, bold, inverse) and the cursor of an xterm.js terminal sent `chunks`. */
async function cellsOf(cols: number, rows: number, ...chunks: string[]): Promise<string> {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  try {
    for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
    const buffer = term.buffer.active;
    const cell = buffer.getNullCell();
    const out: string[] = [];
    for (let y = 0; y < rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      let text = '';
      for (let x = 0; x < cols; x++) {
        line?.getCell(x, cell);
        text += `${cell.getChars() || ' '}${cell.getFgColor()}/${cell.getBgColor()}/${cell.isBold() ? 'b' : ''}${cell.isInverse() ? 'i' : ''}|`;
      }
      out.push(text);
    }
    out.push(`cursor ${buffer.cursorX},${buffer.cursorY} ${buffer.type}`);
    return out.join('\n');
  } finally {
    term.dispose();
  }
}

describe('a viewer attaching at any point goes on as the program\'s terminal (random programs, xterm.js)', function () {
  this.timeout(60_000);
  const [cols, rows] = [20, 6];
  const step = fc.oneof(
    fc.constantFrom('TEXT', 'lqkx', '\r\n', '\t', '\x1b[K', '\x1b[J'),
    fc.tuple(fc.integer({ min: 1, max: rows }), fc.integer({ min: 1, max: cols })).map(([r, c]) => `\x1b[${r};${c}H`),
    fc.constantFrom('\x1b[0m', '\x1b[31m', '\x1b[44m', '\x1b[1m', '\x1b[7m', '\x1b[38;5;100m'),
    fc.constantFrom('\x1b7', '\x1b8', '\x1b[s', '\x1b[u'),
    fc.constantFrom('\x1b(0', '\x1b(B', '\x1b)0', '\x0e', '\x0f'),
    fc.constantFrom('\x1bH', '\x1b[3g', '\x1b[g'),
    fc.constantFrom('\x1b[2;4r', '\x1b[r', '\x1b[?6h', '\x1b[?6l', '\x1b[4h', '\x1b[4l', '\x1b[?7l', '\x1b[?7h'),
    fc.constantFrom('\x1b[?1049h', '\x1b[?1049l'),
  );
  /** Entering the alternate screen while on it saves the cursor again in xterm.js and nowhere else: not a program's way. */
  const program = fc.array(step, { maxLength: 14 }).filter((steps) => {
    let alternate = false;
    for (const s of steps) {
      if (s === '\x1b[?1049h' && alternate) return false;
      if (s.startsWith('\x1b[?1049')) alternate = s.endsWith('h');
    }
    return true;
  });

  it('keeps rows painted in a background colour with no character on them (a full-screen program\'s background)', async () => {
    // The serializer writes no row below the last with a character or the cursor: five blue rows lost.
    const painted = '\x1b[44m\x1b[2J\x1b[H\x1b[1mtitle\x1b[0m';
    const m = new ScreenMirror({ cols, rows });
    try {
      m.write(painted);
      const { screen } = await m.snapshotAt();
      assert.equal(await cellsOf(cols, rows, screen), await cellsOf(cols, rows, painted));
    } finally {
      m.dispose();
    }
  });

  it('the snapshot then the later output draw what the whole output draws', async () => {
    await fc.assert(
      fc.asyncProperty(program, program, async (before, after) => {
        const m = new ScreenMirror({ cols, rows });
        try {
          m.write(before.join(''));
          const { screen } = await m.snapshotAt();
          const whole = [...before, ...after].join('');
          assert.equal(await cellsOf(cols, rows, screen, after.join('')), await cellsOf(cols, rows, whole));
        } finally {
          m.dispose();
        }
      }),
      { numRuns: 300, seed: 57 },
    );
  });
});
