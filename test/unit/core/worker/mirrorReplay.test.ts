/**
 * The mirror's snapshot is only right if a viewer that draws it and then gets
 * the output after it ends with the same screen as the program's own terminal.
 */
import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { ScreenMirror } from '../../../../src/core/worker/mirror';

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
