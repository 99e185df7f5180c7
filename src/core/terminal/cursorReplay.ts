/**
 * The cursor put back where the program has it, one way for every replay (a snapshot's end, and
 * after a viewer's own line over the agent's screen). Its column may be one past the last: after
 * a character written in the last column the next one wraps, and a move back (CUB, BS) starts
 * from the last column, not from the column before it. No cursor movement lands there (each stops
 * at the last column), so the character that put it there is written again, or, on a row with no
 * character (the alternate screen the cursor entered with the wrap pending, a row erased since), a
 * character written there is erased with its whole row (EL 2, which leaves the cursor).
 */
import type { IBuffer, Terminal } from '@xterm/headless';
import { RESET_PEN, rowRedraw, RowRedrawOptions } from './cellDraw';
import { backgroundSgr } from './sgr';
import { openLink } from './penReplay';
import { activeBufferInternals, AttributesInternals, BufferInternals, CharsetInternals } from './xtermInternals';

const INSERT_OFF = '\x1b[4l';
const INSERT_ON = '\x1b[4h';
const ORIGIN_ON = '\x1b[?6h';

/**
 * From any cursor and pen, with insert mode on or off: the active screen's scroll margins (which
 * the serializer does not restore: a viewer without them scrolls the whole screen where the
 * program, Codex's inline viewport or a pager's status line, scrolls only a band of it), origin
 * mode and insert mode as the program has them, and the cursor where it is. Setting margins or
 * origin mode homes the cursor; rows count from the top margin with origin mode on. Ends in the
 * default pen when the cursor needed a character written (`wrapPending`), in `charset` (in use in
 * the viewer; ASCII when not given); a character in `openLink`, the hyperlink the viewer is writing
 * in, is written in it and leaves it open (`pendingCellLink`); one not in it ends it first.
 */
export function cursorReplay(term: Terminal, charset?: CharsetInternals, openLink?: string): string {
  const buffer = activeBufferInternals(term);
  const top = buffer?.scrollTop;
  const bottom = buffer?.scrollBottom;
  const margins = typeof top === 'number' && typeof bottom === 'number' && (top !== 0 || bottom !== term.rows - 1) ? `\x1b[${top + 1};${bottom + 1}r` : '';
  const { insertMode: insert, originMode: origin } = term.modes;
  const placement = cursorPlacement(term, term.buffer.active, buffer, { top: origin ? (top ?? 0) : 0, charset, openLink });
  return `${insert ? INSERT_OFF : ''}${margins}${origin ? ORIGIN_ON : ''}${placement}${insert ? INSERT_ON : ''}`;
}

/** Whether the program's cursor is one past the last column (its next character wraps). */
export function wrapPending(term: Terminal): boolean {
  const x = activeBufferInternals(term)?.x;
  return typeof x === 'number' && x >= term.cols;
}

/**
 * The OSC 8 of the hyperlink of the character the wrap is pending after, which the cursor's
 * placement writes again; '' when none, or no wrap is pending.
 */
export function pendingCellLink(term: Terminal): string {
  const buffer = term.buffer.active;
  const line = wrapPending(term) ? buffer.getLine(buffer.baseY + buffer.cursorY) : undefined;
  if (!line) return '';
  const lastColumn = term.cols - 1;
  const cell = line.getCell(line.getCell(lastColumn)?.getWidth() === 0 ? lastColumn - 1 : lastColumn);
  const urlId = cell?.getChars() ? (cell as unknown as AttributesInternals).extended?.urlId : 0;
  return urlId && (cell as unknown as AttributesInternals).hasExtendedAttrs?.() ? openLink(term, urlId) : '';
}

/**
 * The cursor of `buffer` (`internals`' x and y: x is the column count right after a character
 * written in the last column), in a viewer whose cells are the program's and insert mode off.
 */
function cursorPlacement(term: Terminal, buffer: IBuffer, internals: BufferInternals | undefined, opts: RowRedrawOptions = {}): string {
  const top = opts.top ?? 0;
  const x = internals?.x;
  const y = internals?.y;
  if (typeof x !== 'number' || typeof y !== 'number') return '';
  const lastColumn = term.cols - 1;
  const at = `\x1b[${y + 1 - top};${Math.min(x, lastColumn) + 1}H`;
  const line = buffer.getLine(buffer.baseY + y);
  if (x < term.cols || !line) return at;
  const start = line.getCell(lastColumn)?.getWidth() === 0 ? lastColumn - 1 : lastColumn;
  if (line.getCell(start)?.getChars()) return rowRedraw(term, line, y, [start], opts) ?? at;
  const background = blankRowBackground(line, term.cols);
  return background === undefined ? at : `${at}${RESET_PEN} ${background}\x1b[2K${RESET_PEN}`;
}

/** The background of a row with no character, when it is one colour; undefined otherwise. */
function blankRowBackground(line: NonNullable<ReturnType<IBuffer['getLine']>>, cols: number): string | undefined {
  const cell = line.getCell(0);
  if (!cell) return undefined;
  let background: string | undefined;
  for (let x = 0; x < cols; x++) {
    line.getCell(x, cell);
    if (cell.getChars() !== '') return undefined;
    const own = backgroundSgr(cell.getBgColorMode(), cell.getBgColor());
    if (background !== undefined && own !== background) return undefined;
    background = own;
  }
  return background;
}
