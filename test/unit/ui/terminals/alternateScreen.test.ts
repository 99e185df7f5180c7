import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { AlternateScreenWatch, alternateScreenNotice } from '../../../../src/ui/terminals/alternateScreen';

/** Whether the watch finds the terminal on the alternate screen after each write. */
function after(...writes: string[]): boolean[] {
  const watch = new AlternateScreenWatch();
  return writes.map((w) => (watch.note(w), watch.on));
}

/** Whether a real (headless) xterm.js is on its alternate screen after each write. */
async function xtermAfter(...writes: string[]): Promise<boolean[]> {
  const term = new Terminal({ cols: 80, rows: 8, allowProposedApi: true });
  const on: boolean[] = [];
  for (const w of writes) {
    await new Promise<void>((resolve) => term.write(w, resolve));
    on.push(term.buffer.active.type === 'alternate');
  }
  term.dispose();
  return on;
}

describe('whether a terminal is on the alternate screen (bug 172)', () => {
  it('follows 1049, 1047 and 47, the last one written winning, and RIS leaves it', () => {
    assert.deepEqual(after('a\x1b[?1049hb', 'c', '\x1b[?1049l', '\x1b[?47h\x1b[?1047l\x1b[?1047h', '\x1bc'), [true, true, false, true, false]);
  });

  it('a switch cut between two writes is counted, once', () => {
    assert.deepEqual(after('x\x1b[?10', '49h', 'y', '\x1b[?1049', 'l'), [false, true, true, true, false]);
    // The tail kept from a write that ended in a switch does not count it again after a later one.
    assert.deepEqual(after('\x1b[?1049h', '\x1b[?1049l', 'z'), [true, false, false]);
  });

  it('a switch in a list of modes (DECSET/DECRST), whole or cut between writes, as xterm.js reads it', async () => {
    const cases = [
      ['\x1b[?1049;25hvim'],
      ['\x1b[?25;1049hvim'],
      ['\x1b[?1;2004;1049;1006h'],
      ['\x1b[?1049hvim', '\x1b[?1049;25lshell'],
      ['\x1b[?1049;', '25hvim', '\x1b[?25;10', '49l'],
      ['\x1b[?1000;', '1006;47h', 'x\x1b[', '?25;1047l'],
      ['\x1b[?25;1h\x1b[?1049h\x1b[?12;25l'],
    ];
    for (const writes of cases) assert.deepEqual(after(...writes), await xtermAfter(...writes), JSON.stringify(writes));
  });

  it('bug 222: a switch written with the 8-bit CSI (U+009B), whole, in a list, cut between writes or in a write with no ESC, as xterm.js reads it', async () => {
    const cases = [
      ['\x9b?1049hvim'],
      ['vim\x9b?25;1049h', 'plain', '\x9b?1049lshell'],
      ['\x9b?10', '49h', 'x\x9b', '?47l'],
      ['\x9b', '?1047h'],
      ['\x1b[?1049h', '\x9b?25;1049l'],
      ['\x9b?1049h', '\x1bc'],
    ];
    for (const writes of cases) {
      const expected = await xtermAfter(...writes);
      assert.ok(expected.includes(true), `xterm.js switched for ${JSON.stringify(writes)}`);
      assert.deepEqual(after(...writes), expected, JSON.stringify(writes));
    }
  });
});

describe('a notice on the alternate screen keeps the last screen in view (bug 172)', () => {
  const ROWS = 6;
  const agentScreen = '\x1b[?1049h\x1b[H~ top\x1b[2;1H~ second\x1b[3;1H~ third\x1b[6;1H~ last';

  /** The view of a real (headless) xterm.js, 40 columns wide, after the writes; and whether it is on the alternate screen. */
  async function view(...writes: string[]): Promise<{ rows: string[]; alternate: boolean }> {
    const term = new Terminal({ cols: 40, rows: ROWS, allowProposedApi: true });
    for (const w of writes) await new Promise<void>((resolve) => term.write(w, resolve));
    const buffer = term.buffer.active;
    const rows = Array.from({ length: ROWS }, (_, i) => buffer.getLine(buffer.baseY + i)?.translateToString(true) ?? '');
    const alternate = buffer.type === 'alternate';
    term.dispose();
    return { rows, alternate };
  }

  it('each notice takes one row, a long one cut to the width, so the screen moves up one row a notice', async () => {
    const long = 'what you typed was not sent: the terminal is reconnecting. Type it again once the agent\'s screen is back.';
    const shown = await view(agentScreen, alternateScreenNotice(ROWS, 40, 'connection lost (gone); reconnecting…'), alternateScreenNotice(ROWS, 40, long));
    assert.equal(shown.alternate, true);
    assert.deepEqual(shown.rows, ['~ third', '', '', '~ last', '[paddock] connection lost (gone); recon…', `[paddock] ${long.slice(0, 29)}…`]);
  });

  it('a notice of wide characters is cut before it wraps', async () => {
    const shown = await view(agentScreen, alternateScreenNotice(ROWS, 40, `agent failed: ${'界'.repeat(30)}`));
    assert.deepEqual(shown.rows.slice(0, 2), ['~ second', '~ third']);
    assert.match(shown.rows.at(-1) ?? '', /^\[paddock\] agent failed: 界+…$/);
  });
});
