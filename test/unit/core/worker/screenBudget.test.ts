/**
 * Bug 205: a screen too large for a frame goes as its text. The text alone lost what a full screen restores after its
 * cells: a viewer of it had no bracketed paste (a paste reached a shell as typed keys), the wrong cursor keys, no mouse
 * or focus reports, and wrote the agent's next output outside its scroll region, in the default pen.
 */
import * as assert from 'node:assert/strict';
import { Terminal } from '@xterm/headless';
import { plainScreen } from '../../../../src/core/worker/screenBudget';

const write = (term: Terminal, data: string) => new Promise<void>((resolve) => term.write(data, resolve));

/** The modes, then each row's characters with their foreground and boldness, and the cursor. */
function state(term: Terminal): string {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: string[] = [];
  for (let y = 0; y < term.rows; y++) {
    let row = '';
    for (let x = 0; x < term.cols; x++) {
      buffer.getLine(buffer.viewportY + y)?.getCell(x, cell);
      row += `${cell.getChars() || ' '}${cell.getFgColor()}${cell.isBold() ? 'b' : ''}`;
    }
    rows.push(row);
  }
  return `${JSON.stringify(term.modes)}\n${rows.join('\n')}\ncursor ${buffer.cursorX},${buffer.cursorY}`;
}

describe('a screen sent as its text (bug 205)', () => {
  const cases: [string, string][] = [
    ['bracketed paste, application cursor keys, mouse and focus reporting', '\x1b[?2004h\x1b[?1h\x1b[?1002h\x1b[?1004htext'],
    ['a scroll region and the pen the agent writes in', 'top\x1b[2;4r\x1b[4;1Hbottom\x1b[1;31m'],
    ['insert mode, no autowrap, any-event mouse', '\x1b[4h\x1b[?7l\x1b[?1003hab\x1b[1;1H'],
  ];
  for (const [what, program] of cases) {
    it(`keeps ${what}: the agent's next output lands and looks the same`, async () => {
      const [agent, viewer] = [new Terminal({ cols: 12, rows: 6, allowProposedApi: true }), new Terminal({ cols: 12, rows: 6, allowProposedApi: true })];
      try {
        await write(agent, program);
        await write(viewer, plainScreen(agent));
        const next = 'x\r\ny\r\nz\r\nw';
        await Promise.all([write(agent, next), write(viewer, next)]);
        assert.equal(state(viewer), state(agent));
      } finally {
        agent.dispose();
        viewer.dispose();
      }
    });
  }
});
