/**
 * What the serializer leaves out of a screen that a viewer needs to go on exactly as the
 * program's own terminal does: the output after the snapshot may scroll inside margins, restore
 * a saved cursor (ESC 8), tab to a stop the program set or draw box lines in the DEC graphics
 * set, and each of those lands elsewhere, or prints other characters, in a terminal that was
 * only given the cells. `replayableScreen` adds them to the serializer's text.
 */
import type { IBuffer, Terminal } from '@xterm/headless';
import { withCellsRedrawn } from './cellRedraw';
import { backgroundSgr, sgrOf } from './sgr';
import {
  activeBufferInternals,
  BufferInternals,
  CharsetInternals,
  charsetInternals,
  normalBufferInternals,
} from './xtermInternals';

const ENTER_ALTERNATE = '\x1b[?1049h';
/** ESC ( ) * + designate G0–G3. */
const DESIGNATORS = ['(', ')', '*', '+'];
/** SI, SO, LS2, LS3 shift G0–G3 into use. */
const SHIFTS = ['\x0f', '\x0e', '\x1bn', '\x1bo'];
const TAB_WIDTH = 8;

/** The serializer's `serialized` text of `term`, completed with the state it leaves out. */
export function replayableScreen(term: Terminal, serialized: string): string {
  const normal = normalBufferInternals(term);
  let screen =
    tabStopsReplay(normal, term.cols) +
    savedCursorReplay(normal, term.rows, term.cols) +
    backgroundRowsReplay(term.buffer.normal, term.rows) +
    serialized;
  if (term.buffer.active.type === 'alternate') screen = withAlternateScreenState(term, normal, screen);
  // Before the character sets: the cells redrawn hold the characters as they are shown.
  return withCellsRedrawn(term, screen) + cursorReplay(term) + charsetReplay(term);
}

/**
 * Around the serializer's switch to the alternate screen: before it, the normal screen's margins
 * and the pen and character set the switch saves (the program gets them back when it leaves);
 * after it, a default pen and ASCII, which the serializer's alternate screen assumes (it would
 * otherwise be drawn in the pen the normal screen ended with), and the alternate screen's own
 * tab stops and saved cursor.
 */
function withAlternateScreenState(term: Terminal, normal: BufferInternals | undefined, screen: string): string {
  const switchAt = screen.indexOf(ENTER_ALTERNATE);
  if (switchAt < 0 || !normal) return screen;
  const after = switchAt + ENTER_ALTERNATE.length;
  const saved = normal.savedCurAttrData ? sgrOf(normal.savedCurAttrData) : '';
  const before = `${normalScreenMargins(term, normal)}\x1b[0m${saved}${isDecGraphics(normal.savedCharset) ? '\x1b(0' : ''}`;
  // xterm.js keeps each screen's tab stops (the alternate screen's from its last use).
  const alternate = `\x1b[0m\x1b(B${tabStopsReplay(activeBufferInternals(term), term.cols)}${savedCursorReplay(activeBufferInternals(term), term.rows, term.cols)}${backgroundRowsReplay(term.buffer.alternate, term.rows)}`;
  return `${screen.slice(0, switchAt)}${before}${ENTER_ALTERNATE}${alternate}${screen.slice(after)}`;
}

/**
 * The normal screen's own margins, while the program shows the alternate one, with the cursor put
 * back after them (setting margins homes it, and the switch saves it), so the viewer has them when
 * the program leaves the alternate screen.
 */
function normalScreenMargins(term: Terminal, normal: BufferInternals): string {
  const { scrollTop: top, scrollBottom: bottom, x, y } = normal;
  if (typeof top !== 'number' || typeof bottom !== 'number' || typeof x !== 'number' || typeof y !== 'number') return '';
  if (top === 0 && bottom === term.rows - 1) return '';
  return `\x1b[${top + 1};${bottom + 1}r\x1b[${y + 1};${x + 1}H`;
}

/**
 * The scroll margins (DECSTBM) the program set, which the serializer does not restore: a viewer
 * without them scrolls the whole screen where the program (Codex's inline viewport, a pager's
 * status line) scrolls only a band of it. Then the cursor, put back where it is: setting margins
 * homes it, and so does the serializer's origin mode (`?6h`, after which rows count from the top
 * margin); with auto-wrap off the serializer's row, written to the last column, leaves the viewer's
 * cursor one column past the program's.
 */
function cursorReplay(term: Terminal): string {
  const buffer = activeBufferInternals(term);
  const top = buffer?.scrollTop;
  const bottom = buffer?.scrollBottom;
  if (typeof top !== 'number' || typeof bottom !== 'number') return '';
  const fullScreen = top === 0 && bottom === term.rows - 1;
  const origin = term.modes.originMode;
  if (fullScreen && !origin && term.modes.wraparoundMode) return '';
  const cursor = term.buffer.active;
  const row = cursor.cursorY + 1 - (origin ? top : 0);
  return `${fullScreen ? '' : `\x1b[${top + 1};${bottom + 1}r`}\x1b[${row};${cursor.cursorX + 1}H`;
}

/**
 * DECSC's slot (ESC 7 or CSI s): programs save the cursor, draw a status line elsewhere and
 * restore it (ESC 8); a viewer with an empty slot would restore to the top-left corner. An empty
 * slot is written too: the viewer's may hold a cursor of its own (the VS Code terminal saves one
 * for its reconnect notice, and the mode reset before a screen saves one around DECSTBM). Written
 * where the cursor is free to move (before the screen's cells, or right after the switch to the
 * alternate screen), it ends at home with the default pen, where the serializer starts.
 */
function savedCursorReplay(buffer: BufferInternals | undefined, rows: number, cols: number): string {
  if (!buffer || typeof buffer.savedX !== 'number' || typeof buffer.savedY !== 'number') return '';
  const row = Math.min(rows - 1, Math.max(0, buffer.savedY - (buffer.ybase ?? 0)));
  const col = Math.min(cols - 1, Math.max(0, buffer.savedX));
  const pen = buffer.savedCurAttrData ? sgrOf(buffer.savedCurAttrData) : '';
  const graphics = isDecGraphics(buffer.savedCharset);
  return `\x1b[${row + 1};${col + 1}H${pen}${graphics ? '\x1b(0' : ''}\x1b7${pen ? '\x1b[0m' : ''}${graphics ? '\x1b(B' : ''}\x1b[H`;
}

/**
 * Rows with no character but a background colour (a program that paints its background with
 * `CSI 44 m CSI 2 J`, or erases lines in colour): the serializer leaves out the rows after the
 * last one with a character, so a viewer drew them in the default background. Painted with ECH
 * (which erases in the pen's background) before the cells, where the serializer does not write;
 * ends at home with the default pen.
 */
function backgroundRowsReplay(buffer: IBuffer, rows: number): string {
  const first = buffer.length - rows;
  const cell = buffer.getNullCell();
  let out = '';
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(first + y);
    if (!line) continue;
    let row = '';
    let runStart = 0;
    let runBackground: string | undefined;
    const endRun = (x: number) => {
      if (runBackground !== undefined) row += `\x1b[${y + 1};${runStart + 1}H${runBackground}\x1b[${x - runStart}X`;
    };
    let hasText = false;
    for (let x = 0; x < line.length && !hasText; x++) {
      line.getCell(x, cell);
      if (cell.getChars() !== '') hasText = true;
      const background = cell.isBgDefault() ? undefined : backgroundSgr(cell.getBgColorMode(), cell.getBgColor());
      if (background === runBackground) continue;
      endRun(x);
      runStart = x;
      runBackground = background;
    }
    // A row with characters is the serializer's, backgrounds included.
    if (hasText) continue;
    endRun(line.length);
    out += row;
  }
  return out ? `${out}\x1b[0m\x1b[H` : '';
}

/** Tab stops the program set or cleared (HTS, TBC), when they are not a terminal's every 8 columns. */
function tabStopsReplay(buffer: BufferInternals | undefined, cols: number): string {
  const tabs = buffer?.tabs;
  if (!tabs) return '';
  // Column 0 is never tabbed to: whether it holds a stop does not matter.
  const stops = Object.keys(tabs)
    .map(Number)
    .filter((x) => tabs[x] && x > 0 && x < cols)
    .sort((a, b) => a - b);
  const usual = stops.length === Math.ceil(cols / TAB_WIDTH) - 1 && stops.every((x, i) => x === (i + 1) * TAB_WIDTH);
  if (usual) return '';
  return `\x1b[3g${stops.map((x) => `\x1b[1;${x + 1}H\x1bH`).join('')}\x1b[H`;
}

/**
 * The character sets designated and the one in use: a program that switched to DEC line drawing
 * (`ESC ( 0`, or `ESC ) 0` then SO, as ncurses does) and draws on prints `lqqk` as letters in a
 * viewer that was not told. Only DEC special graphics is replayed: it is the set programs use,
 * and the only one besides ASCII that tmux knows.
 */
export function charsetReplay(term: Terminal): string {
  const service = charsetInternals(term);
  if (!service) return '';
  const level = service.glevel ?? 0;
  let out = '';
  for (let slot = 0; slot < DESIGNATORS.length; slot++) {
    // DECRC puts the saved set in use without designating it: what is in use is what counts.
    const set = slot === level ? service.charset : service._charsets?.[slot];
    if (isDecGraphics(set)) out += `\x1b${DESIGNATORS[slot]}0`;
  }
  return level !== 0 ? out + SHIFTS[level] : out;
}

/** xterm.js's DEC special graphics map (`q` is the horizontal line). */
function isDecGraphics(set: CharsetInternals): boolean {
  return !!set && set.q === '\u2500';
}
