/**
 * Cells of a program's screen written again, each in its whole pen and hyperlink, and what a
 * viewer can be told of a cell (to compare a viewer's cell with the program's).
 */
import { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { DROPPED_WIDE_CHARACTER, END_LINK, openLink } from './penReplay';
import { backgroundSgr, sgrOf } from './sgr';
import type { AttributesInternals, CharsetInternals } from './xtermInternals';

export const RESET_PEN = '\x1b[0m';
const WRAP_OFF = '\x1b[?7l';
const WRAP_ON = '\x1b[?7h';
/**
 * The wide character dropped over a wide character's second half in the last column (auto-wrap
 * off right before it, which nothing else in a snapshot writes before a wide character): VTE and
 * kitty draw it at the second-to-last column instead, so `paddock attach` takes it out and leaves
 * the wide character whole there, what every terminal shows of it (`withoutScreenSwitches`).
 */
// eslint-disable-next-line no-control-regex -- the sequence is made of escapes
export const DROPPED_OVER_WIDE_SECOND_HALF = /\x1b\[\?7l\u4e00/g;

export interface RowRedrawOptions {
  /** Rows are counted from this row (the top margin, with origin mode on). */
  top?: number;
  /** The character set the viewer has in use (what it would turn the characters into). */
  charset?: CharsetInternals;
  /** The hyperlink (its OSC 8) the viewer is writing in: kept for a cell in it, and left open after. */
  openLink?: string;
}

/**
 * Cells at `xs` of row `y` (of the screen), each in its whole pen, from the default pen; ends in
 * the default pen, outside any hyperlink (but `opts.openLink`, when the last cell is in it).
 * Undefined when a character cannot be written in the `charset` in use (a letter DEC line drawing
 * would turn into a line).
 */
export function rowRedraw(term: Terminal, line: IBufferLine, y: number, xs: number[], opts: RowRedrawOptions = {}): string | undefined {
  const lastColumn = term.cols - 1;
  // A character or blank over the second half of a wide character in the last two columns is written right after it (below), and with it.
  if (overWideSecondHalf(line, lastColumn) && (xs.includes(lastColumn) || xs.includes(lastColumn - 1))) {
    xs = [...xs.filter((x) => x < lastColumn - 1), lastColumn - 1, lastColumn];
  }
  const cell = line.getCell(xs[0]) as IBufferCell;
  const row = y + 1 - (opts.top ?? 0);
  let out = '';
  let at = -1;
  let pen: string | undefined;
  let link = opts.openLink ?? '';
  const wrapBack = term.modes.wraparoundMode ? WRAP_ON : '';
  for (const x of xs) {
    line.getCell(x, cell);
    const width = cell.getWidth();
    if (width === 0) continue;
    // Right after the wide character, one past the last column: with auto-wrap off, a character
    // there goes to the last column without erasing the wide character's first half (a move there would).
    const overWide = x === lastColumn && at === term.cols && overWideSecondHalf(line, x);
    if (at !== x && !overWide) out += `\x1b[${row};${x + 1}H`;
    const chars = cell.getChars();
    if (chars === '') {
      // An erased cell has only a background: erased again in it (ECH), which leaves the cursor. Over
      // a wide character's second half, it is what a wide character dropped there leaves (in the pen's background).
      const background = `${RESET_PEN}${backgroundSgr(cell.getBgColorMode(), cell.getBgColor())}`;
      out += overWide ? `${background}${WRAP_OFF}${DROPPED_WIDE_CHARACTER}${wrapBack}` : `${background}\x1b[X`;
      pen = undefined;
      at = -1;
      continue;
    }
    const written = inCharset(chars, opts.charset);
    if (written === undefined) return undefined;
    const cellLink = linkOf(term, cell);
    if (cellLink !== link) out += cellLink || END_LINK;
    link = cellLink;
    const cellPen = sgrOf(cell as unknown as AttributesInternals, extendedOf(cell));
    if (cellPen !== pen) out += RESET_PEN + cellPen;
    pen = cellPen;
    out += overWide ? `${WRAP_OFF}${written}${wrapBack}` : written;
    at = x + width;
  }
  return `${out}${link && link !== opts.openLink ? END_LINK : ''}${RESET_PEN}`;
}

/**
 * Whether the cell at `x`, the last column, is a character or blank over the second half of a wide
 * character: xterm.js writes there with auto-wrap off and the cursor one past the last column,
 * and keeps the wide character's first half (a program that wrote a wide character up to the last
 * column, turned auto-wrap off and wrote on); a wide character it drops there (it does not fit)
 * leaves a blank in the pen's background.
 */
export function overWideSecondHalf(line: IBufferLine, x: number): boolean {
  return x > 0 && line.getCell(x - 1)?.getWidth() === 2 && line.getCell(x)?.getWidth() === 1;
}

/**
 * What to write for `chars` to be shown with `charset` in use: a character the set draws is
 * written as the one it replaces; undefined when one would be replaced by another.
 */
function inCharset(chars: string, charset: CharsetInternals): string | undefined {
  if (!charset) return chars;
  let out = '';
  for (const ch of chars) {
    if (charset[ch] !== undefined) return undefined;
    out += Object.keys(charset).find((key) => charset[key] === ch) ?? ch;
  }
  return out;
}

/**
 * What a viewer can be told of a cell: its characters, pen and hyperlink; of a cell with no
 * character, its background (what erasing leaves; the pen a wide character that did not fit
 * leaves on the last column's blank has no other way there).
 */
export function cellKey(term: Terminal, cell: IBufferCell): string {
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
