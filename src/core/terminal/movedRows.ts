/**
 * Characters xterm.js moved away from their hyperlink's rows (bug 144; random programs, seeds 2424
 * and 3144). xterm.js keeps a link as long as one of its rows is kept, and moves a row's markers
 * with it on IL, DL, SU and SD, but two scrolls shift the rows in place and leave every marker
 * where it was: reverse index at the top margin, and index (LF, NEL) at the bottom margin when the
 * top margin is not the first row. After them a link is kept for rows whose characters moved away,
 * and not for the row they are on; deleting the blank row forgets the link, and its characters
 * show none. A viewer adds a row to a link wherever it is given a character in it, so it kept the
 * link with the characters' own row. Such a row's characters in the link are drawn on a row the
 * link is kept for (the nearest), with the link opened on every row it is kept for, and moved to
 * their own row the same way (RI or IND inside margins from that row to theirs): the link's rows
 * stay where the program's are. The rows the move passed over are left blank, for the cells'
 * redraw after.
 */
import type { IBuffer, IBufferCell, Terminal } from '@xterm/headless';
import { RESET_PEN, rowRedraw } from './cellDraw';
import { END_LINK, linkOnRows, linkRows, openLink } from './penReplay';
import type { AttributesInternals, BufferInternals } from './xtermInternals';

const REVERSE_INDEX = '\x1bM';
const INDEX = '\x1bD';
const WHOLE_SCREEN = '\x1b[r';
const ERASE_ROW = '\x1b[2K';

/** A row whose characters in the link `urlId` are not on a row it is kept for; `from`: the kept row they are drawn on. */
interface MovedRow {
  row: number;
  from: number;
  urlId: number;
  xs: number[];
}

/**
 * The characters of `buffer`'s screen (`screen`: its internals) on rows their link is not kept for,
 * drawn on a row it is kept for and moved to theirs, in a viewer with insert and origin modes off
 * and auto-wrap as `wrapOn`; ends with whole-screen margins, the default pen, no link open, the
 * cursor anywhere. Rows it cannot move so are left out (as before: drawn on their own row): one
 * with characters of two such links, one whose link is kept for no row of the screen (only for a
 * line of the scrollback or of the other screen), one the index would push into the scrollback
 * (moved up to the top row), a move over a wrapped row (the wrap would move with the row) or over
 * a row moved before. '' when none.
 */
export function movedRowsReplay(term: Terminal, buffer: IBuffer, screen: BufferInternals | undefined, wrapOn: boolean): string {
  const placed: number[] = [];
  let out = '';
  for (const move of inOrder(movedRows(term, buffer, screen))) {
    const [top, bottom] = move.from < move.row ? [move.from, move.row] : [move.row, move.from];
    if (placed.some((row) => row >= top && row <= bottom) || wrappedBetween(buffer, top, bottom)) continue;
    const rows = linkRows(term, move.urlId, buffer, screen);
    const line = buffer.getLine(buffer.baseY + move.row);
    const cells = line && rowRedraw(term, line, move.from, move.xs, { openLink: openLink(term, move.urlId) });
    if (!cells) continue;
    const shift = (move.from < move.row ? REVERSE_INDEX : INDEX).repeat(bottom - top);
    out +=
      `${RESET_PEN}${linkOnRows(term, move.urlId, buffer, rows, wrapOn)}\x1b[${move.from + 1};1H${ERASE_ROW}${cells}${END_LINK}` +
      `${RESET_PEN}\x1b[${top + 1};${bottom + 1}r\x1b[${move.from + 1};1H${shift}`;
    placed.push(move.row);
  }
  return out && `${out}${WHOLE_SCREEN}`;
}

/**
 * Moves down (from a row above) bottom-up, then moves up top-down: each passes over rows not yet
 * drawn. Not up to the top row: an index there with the top margin on the first row scrolls into
 * the scrollback, which moves the markers too.
 */
function inOrder(moves: MovedRow[]): MovedRow[] {
  const down = moves.filter((move) => move.from < move.row).sort((a, b) => b.row - a.row);
  const up = moves.filter((move) => move.from > move.row && move.row > 0).sort((a, b) => a.row - b.row);
  return [...down, ...up];
}

function movedRows(term: Terminal, buffer: IBuffer, screen: BufferInternals | undefined): MovedRow[] {
  const moves: MovedRow[] = [];
  const cell = buffer.getNullCell();
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    const byLink = new Map<number, number[]>();
    for (let x = 0; line && x < term.cols; x++) {
      const urlId = linkOf(line.getCell(x, cell));
      if (urlId && cell.getWidth() > 0 && cell.getChars() !== '') byLink.set(urlId, [...(byLink.get(urlId) ?? []), x]);
    }
    const away = [...byLink].filter(([urlId]) => !linkRows(term, urlId, buffer, screen).includes(y));
    if (away.length !== 1) continue;
    const [[urlId, xs]] = away;
    const kept = linkRows(term, urlId, buffer, screen);
    if (kept.length === 0) continue;
    const from = kept.reduce((best, row) => (Math.abs(row - y) < Math.abs(best - y) ? row : best));
    moves.push({ row: y, from, urlId, xs });
  }
  return moves;
}

/** The cell's hyperlink (xterm.js's number for it); 0 for none. */
function linkOf(cell: IBufferCell | undefined): number {
  const attrs = cell as unknown as AttributesInternals | undefined;
  return (attrs?.hasExtendedAttrs?.() ? attrs.extended?.urlId : 0) ?? 0;
}

/** Whether a row from `top` to `bottom` continues the one above (a move would carry its wrap elsewhere). */
function wrappedBetween(buffer: IBuffer, top: number, bottom: number): boolean {
  for (let y = top; y <= bottom; y++) if (buffer.getLine(buffer.baseY + y)?.isWrapped) return true;
  return false;
}
