/**
 * Cells the serializer draws otherwise than the program's screen has them: it says a cell's
 * colours and flags but not its underline's style (double, curly, dotted, dashed) or colour, nor
 * the hyperlink (OSC 8) it belongs to, which it turns into a plain underline; and between a cell
 * both bold and dim and one that is only one of them it writes SGR 22, which turns off both.
 * Rather than know each of its slips, the replay of a screen with any such attribute is drawn in a
 * scratch terminal, as a viewer draws it, and compared with the program's screen cell by cell:
 * each cell that differs is drawn again in its whole pen, and the pen is set again when the
 * viewer's would differ.
 */
import { IBuffer, IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { END_LINK, openLink, penReplay } from './penReplay';
import { backgroundSgr, sgrOf } from './sgr';
import { activeBufferInternals, AttributesInternals, BufferInternals, normalBufferInternals, penInternals, writeNow } from './xtermInternals';

const ENTER_ALTERNATE = '\x1b[?1049h';
const RESET_PEN = '\x1b[0m';
const INSERT_ON = '\x1b[4h';
const INSERT_OFF = '\x1b[4l';
const ORIGIN_ON = '\x1b[?6h';
const ORIGIN_OFF = '\x1b[?6l';

/**
 * `screen` (a replay of `term`) with the cells a viewer would draw otherwise drawn again: the
 * normal screen's before the switch to the alternate one (after it they could not be reached),
 * the shown screen's at the end, each followed by the cursor put back where it was. Unchanged
 * when nothing differs, or when this xterm.js cannot draw the scratch copy at once.
 */
export function withCellsRedrawn(term: Terminal, screen: string): string {
  if (!mayComeOutOtherwise(term)) return screen;
  const viewer = scratchWith(screen, term.cols, term.rows);
  if (!viewer) return screen;
  let out = screen;
  if (term.buffer.active.type === 'alternate') {
    const normal = redraws(term, term.buffer.normal, viewer, viewer.buffer.normal);
    const switchAt = out.indexOf(ENTER_ALTERNATE);
    if (normal && switchAt >= 0) {
      // The switch saves the cursor: it must be the program's again.
      const back = cursorBack(term, term.buffer.normal, normalBufferInternals(term));
      out = `${out.slice(0, switchAt)}${normal}${back}${out.slice(switchAt)}`;
    }
  }
  const shown = redraws(term, term.buffer.active, viewer, viewer.buffer.active);
  if (shown) {
    // After the serializer's modes: insert mode would push the row's other cells right, and origin
    // mode count rows from a top margin (in terminals where the normal screen's margins hold on the
    // alternate one); setting it again homes the cursor, which the replay's cursor then moves.
    const { insertMode: insert, originMode: origin } = term.modes;
    const back = cursorBack(term, term.buffer.active, activeBufferInternals(term));
    out += `${insert ? INSERT_OFF : ''}${origin ? ORIGIN_OFF : ''}${shown}${back}${origin ? ORIGIN_ON : ''}${insert ? INSERT_ON : ''}`;
  }
  const pen = penReplay(term);
  if (shown || pen !== penReplay(viewer)) out += RESET_PEN + pen;
  return out;
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
 * Whether a cell or the pen has what the serializer has been seen to say otherwise: an underline
 * style or colour or a hyperlink (xterm.js's extended attributes), or dim (SGR 22). A screen of
 * plain output, like most in a flood, is not drawn a second time: a scratch terminal per attach
 * grew a busy worker's memory by a sixth.
 */
function mayComeOutOtherwise(term: Terminal): boolean {
  const pen = penInternals(term);
  if (pen && (pen.isDim() || pen.hasExtendedAttrs?.() || pen.extended?.underlineColor)) return true;
  const buffers = term.buffer.active.type === 'alternate' ? [term.buffer.normal, term.buffer.alternate] : [term.buffer.normal];
  for (const buffer of buffers) {
    const cell = buffer.getNullCell();
    for (let y = 0; y < term.rows; y++) {
      const line = buffer.getLine(buffer.baseY + y);
      for (let x = 0; line && x < term.cols; x++) {
        line.getCell(x, cell);
        if (cell.isDim() || (cell as unknown as AttributesInternals).hasExtendedAttrs?.()) return true;
      }
    }
  }
  return false;
}

/** The cells of `buffer`'s screen that `viewerBuffer`'s differ from, drawn again; '' when none do. */
function redraws(term: Terminal, buffer: IBuffer, viewer: Terminal, viewerBuffer: IBuffer): string {
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
    if (differing.size > 0) out += rowRedraw(term, line, y, [...differing].sort((a, b) => a - b));
  }
  return out;
}

/** Cells at `xs` of row `y` (of the screen), each in its whole pen, from the default pen; ends in the default pen. */
function rowRedraw(term: Terminal, line: IBufferLine, y: number, xs: number[]): string {
  const cell = line.getCell(xs[0]) as IBufferCell;
  let out = '';
  let at = -1;
  let pen: string | undefined;
  let link = '';
  for (const x of xs) {
    line.getCell(x, cell);
    const width = cell.getWidth();
    if (width === 0) continue;
    if (at !== x) out += `\x1b[${y + 1};${x + 1}H`;
    const chars = cell.getChars();
    if (chars === '') {
      // An erased cell has only a background: erased again in it (ECH), which leaves the cursor.
      out += `${RESET_PEN}${backgroundSgr(cell.getBgColorMode(), cell.getBgColor())}\x1b[X`;
      pen = undefined;
      at = -1;
      continue;
    }
    const cellLink = linkOf(term, cell);
    if (cellLink !== link) out += cellLink || END_LINK;
    link = cellLink;
    const cellPen = sgrOf(cell as unknown as AttributesInternals, extendedOf(cell));
    if (cellPen !== pen) out += RESET_PEN + cellPen;
    pen = cellPen;
    out += chars;
    at = x + width;
  }
  return `${out}${link ? END_LINK : ''}${RESET_PEN}`;
}

/**
 * The cursor where the program has it (`internals`' x and y: x is the column count right after
 * a character written in the last column, when the next one wraps), after redraws moved it:
 * that state is had again by writing that last character again.
 */
export function cursorBack(term: Terminal, buffer: IBuffer, internals: BufferInternals | undefined): string {
  const x = internals?.x;
  const y = internals?.y;
  if (typeof x !== 'number' || typeof y !== 'number') return '';
  const line = buffer.getLine(buffer.baseY + y);
  if (x >= term.cols && term.modes.wraparoundMode && line) {
    const last = term.cols - 1;
    const start = line.getCell(last)?.getWidth() === 0 ? last - 1 : last;
    if (line.getCell(start)?.getChars()) return rowRedraw(term, line, y, [start]);
  }
  return `\x1b[${y + 1};${Math.min(x, term.cols - 1) + 1}H`;
}

/**
 * What a viewer can be told of a cell: its characters, pen and hyperlink; of a cell with no
 * character, its background (what erasing leaves; the pen a wide character that did not fit
 * leaves on the last column's blank has no other way there).
 */
function cellKey(term: Terminal, cell: IBufferCell): string {
  if (cell.getChars() === '') return `\0${cell.getWidth()}\0${backgroundSgr(cell.getBgColorMode(), cell.getBgColor())}`;
  return `${cell.getChars()}\0${cell.getWidth()}\0${sgrOf(cell as unknown as AttributesInternals, extendedOf(cell))}\0${linkOf(term, cell)}`;
}

/** A cell's underline style and colour and hyperlink: only while it has them (otherwise stale). */
function extendedOf(cell: IBufferCell): AttributesInternals['extended'] {
  const attrs = cell as unknown as AttributesInternals;
  return attrs.hasExtendedAttrs?.() ? attrs.extended : undefined;
}

/** The OSC 8 that opens the cell's hyperlink; '' when it has none. */
function linkOf(term: Terminal, cell: IBufferCell): string {
  const id = extendedOf(cell)?.urlId;
  return id ? openLink(term, id) : '';
}
