/**
 * A viewer's own line over the agent's screen must leave the agent's terminal state as it was:
 * what the agent writes next lands where, and looks as, it would without the line.
 */
import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { lineOverScreen } from '../../../../src/core/terminal/lineOverScreen';

const COLS = 20;
const ROWS = 6;

/** Every row but the last (the line's), with each cell's character and pen, and the cursor. */
async function above(...chunks: string[]): Promise<string> {
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  try {
    for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
    const buffer = term.buffer.active;
    const cell = buffer.getNullCell();
    const rows: string[] = [];
    for (let y = 0; y < ROWS - 1; y++) {
      let row = '';
      for (let x = 0; x < COLS; x++) {
        buffer.getLine(buffer.viewportY + y)?.getCell(x, cell);
        row += `${cell.getChars() || ' '}${cell.getFgColor()}${cell.isBold() ? 'b' : ''}${cell.isUnderline() ? 'u' : ''}`;
      }
      rows.push(row);
    }
    return `${rows.join('\n')}\ncursor ${buffer.cursorX},${buffer.cursorY}`;
  } finally {
    term.dispose();
  }
}

describe('a line over the agent\'s screen', () => {
  const cases: [string, string, string][] = [
    ['keeps the cursor the agent saved (ESC 7), and its pen', 'a\x1b[3;5H\x1b[31;1m\x1b7\x1b[0m\x1b[2;2Hb', '\x1b8X'],
    ['keeps the cursor saved with CSI s', 'a\x1b[3;5H\x1b[s\x1b[4;1Hb', '\x1b[uX'],
    ['puts the cursor and pen back', '\x1b[2;3H\x1b[32;4mgreen', ' more'],
    ['with DEC line drawing in use', '\x1b(0lqq', 'qk'],
    ['with origin mode inside margins', '\x1b[2;4r\x1b[?6h\x1b[2;3Hin', 'side\r\nnext'],
    ['with insert mode', 'abcdef\x1b[1;3H\x1b[4h', 'XY'],
    ['with the cursor past the last column (the next character wraps)', `\x1b[1;1H${'x'.repeat(COLS)}`, 'W'],
    ['with a hyperlink open', '\x1b]8;;https://a.example/\x1b\\link', 'ed'],
    ['with origin mode and the next character wrapping', '\x1b[2;4r\x1b[?6h\x1b[1;17HTEXT', 'W'],
    ['with DEC line drawing in G0 after leaving the alternate screen (ASCII in use until SI)', '\x1b[?1049h\x1b(0\x1b[?1049l', 'lq\x0flq'],
  ];
  for (const [title, drawn, after] of cases) {
    it(title, async () => {
      const line = lineOverScreen(drawn, COLS, ROWS, 'notice');
      assert.ok(line.includes('notice'));
      // Restoring the saved cursor (to put a character set back in use) leaves the slot as it was.
      for (const slot of ['\x1b7', '\x1b[s']) assert.ok(!line.includes(slot), 'no DECSC');
      assert.equal(await above(drawn, line, after), await above(drawn, after));
    });
  }
});
