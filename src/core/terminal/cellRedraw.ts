/**
 * Cells the serializer draws otherwise than the program's screen has them: it says a cell's
 * colours and flags but not its underline's style (double, curly, dotted, dashed) or colour, nor
 * the hyperlink (OSC 8) it belongs to, which it turns into a plain underline; and between a cell
 * both bold and dim and one that is only one of them it writes SGR 22, which turns off both.
 * Rather than know each of its slips, the replay of a screen with any such attribute is drawn in a
 * scratch terminal, as a viewer draws it, and compared with the program's screen cell by cell:
 * each cell that differs is drawn again in its whole pen (the pen the program writes in next is
 * `writingStateReplay`'s to set, whatever the cells).
 */
import { IBuffer, Terminal } from '@xterm/headless';
import { cellKey, overWideSecondHalf, rowRedraw } from './cellDraw';
import { movedRowsReplay } from './movedRows';
import { activeBufferInternals, AttributesInternals, normalBufferInternals, writeNow } from './xtermInternals';

const INSERT_OFF = '\x1b[4l';
const ORIGIN_OFF = '\x1b[?6l';

/**
 * The cells of `term` a viewer sent `screenWith('')` (a replay of `term`) would draw otherwise,
 * drawn again: the normal screen's, for before the switch to the alternate one (after it they could
 * not be reached; `screenWith(normal)` puts `normal` there), and the shown screen's, for after the
 * serializer's modes (with insert mode, which would push the row's other cells right, and origin
 * mode, which counts rows from a top margin, turned off: `cursorReplay`, which follows, sets both
 * again). Each first moves characters to rows their hyperlink is not kept for (`movedRowsReplay`),
 * which leaves the rows it passes over to the redraw. Each leaves the cursor anywhere and the
 * default pen; '' when nothing differs, or when this xterm.js cannot draw the scratch copy at once.
 * `shownLink`: the hyperlink the viewer is writing in on the shown screen (`carriedPenLink`), kept
 * open (no characters are moved there: that would end it).
 */
export function cellRedraws(term: Terminal, screenWith: (normal: string) => string, shownLink?: string): { normal: string; shown: string } {
  const none = { normal: '', shown: '' };
  if (!mayComeOutOtherwise(term)) return none;
  const alternate = term.buffer.active.type === 'alternate';
  // Before the switch the viewer has auto-wrap on (the serializer sets the modes after both screens).
  const normalMoved = alternate ? movedRowsReplay(term, term.buffer.normal, normalBufferInternals(term), true) : '';
  const shownMoved = shownLink === undefined ? movedRowsReplay(term, term.buffer.active, activeBufferInternals(term), term.modes.wraparoundMode) : '';
  const modesOff = `${term.modes.insertMode ? INSERT_OFF : ''}${term.modes.originMode ? ORIGIN_OFF : ''}`;
  const viewer = scratchWith(`${screenWith(normalMoved)}${shownMoved && modesOff + shownMoved}`, term.cols, term.rows);
  if (!viewer) return none;
  const normal = alternate ? normalMoved + redraws(term, term.buffer.normal, viewer, viewer.buffer.normal) : '';
  const shown = shownMoved + redraws(term, term.buffer.active, viewer, viewer.buffer.active, shownLink);
  return { normal, shown: shown && modesOff + shown };
}

/**
 * The scratch terminal, kept and reset for each screen (a new one allocates its buffers, parser and
 * services each time, on every attach), after drawing `screen`; undefined when this xterm.js cannot
 * draw it at once. It is only ever sent snapshots, which hold no hyperlink its reset would not drop.
 */
let scratch: Terminal | undefined;
function scratchWith(screen: string, cols: number, rows: number): Terminal | undefined {
  scratch ??= new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
  scratch.reset();
  if (scratch.cols !== cols || scratch.rows !== rows) scratch.resize(cols, rows);
  return writeNow(scratch, screen) ? scratch : undefined;
}

/**
 * Whether a cell has what the serializer has been seen to say otherwise: an underline
 * style or colour or a hyperlink (xterm.js's extended attributes), or dim (SGR 22); or a row
 * continues one (wrapped) that ends in a cell with no character (a wide character that did not
 * fit, a row erased since): the serializer forces that wrap by writing dashes and erasing them,
 * and leaves one in the first column of a row with no character (its `CSI 0 C` moves one column);
 * or the continuing row starts with a cell with no character, which the serializer moves over
 * (CUF) where the wrap was to be written: the row's characters start on the row above; or a
 * character over the second half of a wide character in the last column, which it writes on the next row.
 * A screen of plain output, like most in a flood, is not drawn a second time: a scratch terminal
 * per attach grew a busy worker's memory by a sixth.
 */
function mayComeOutOtherwise(term: Terminal): boolean {
  const buffers = term.buffer.active.type === 'alternate' ? [term.buffer.normal, term.buffer.alternate] : [term.buffer.normal];
  for (const buffer of buffers) {
    const cell = buffer.getNullCell();
    for (let y = 0; y < term.rows; y++) {
      const line = buffer.getLine(buffer.baseY + y);
      if (y > 0 && line?.isWrapped && (!line.getCell(0, cell)?.getChars() || !buffer.getLine(buffer.baseY + y - 1)?.getCell(term.cols - 1, cell)?.getChars())) return true;
      for (let x = 0; line && x < term.cols; x++) {
        line.getCell(x, cell);
        if (cell.isDim() || (cell as unknown as AttributesInternals).hasExtendedAttrs?.()) return true;
      }
      if (line && overWideSecondHalf(line, term.cols - 1)) return true;
    }
  }
  return false;
}

/** The cells of `buffer`'s screen that `viewerBuffer`'s differ from, drawn again; '' when none do. */
function redraws(term: Terminal, buffer: IBuffer, viewer: Terminal, viewerBuffer: IBuffer, openLink?: string): string {
  const cell = buffer.getNullCell();
  const viewerCell = viewerBuffer.getNullCell();
  let out = '';
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    if (!line) continue;
    const viewerLine = viewerBuffer.getLine(viewerBuffer.baseY + y);
    const differing = new Set<number>();
    for (let x = 0; x < term.cols; x++) {
      line.getCell(x, cell);
      const seen = viewerLine?.getCell(x, viewerCell);
      if (seen && cellKey(term, cell) === cellKey(viewer, seen)) continue;
      // The second half of a wide character is drawn with its first.
      differing.add(cell.getWidth() === 0 && x > 0 ? x - 1 : x);
    }
    if (differing.size > 0) out += rowRedraw(term, line, y, [...differing].sort((a, b) => a - b), { openLink }) ?? '';
  }
  return out;
}
