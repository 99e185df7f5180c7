/**
 * The pen's hyperlink kept for a line of the scrollback (random programs, seed 4536: an OSC 8, the
 * cursor to the last row, `ESC D`). xterm.js keeps a link as long as one of its lines is, and a
 * line in the scrollback is kept until it is trimmed: the program goes on writing in it after every
 * row of the screen it is on was erased or deleted. A viewer given the link on the screen's rows
 * alone (or on the cursor's, with none there) forgot it then, and the program's next characters
 * came out underlined with no link. The viewer is given a line of its own scrollback in the link:
 * a blank row of the screen (one no link is kept for, so nothing else is lost) is deleted and a
 * row in the link inserted at the top (IL inside margins down to it, which moves every row between
 * with what is kept for it), and pushed into the scrollback (LF at the bottom of those margins,
 * which leaves the rows below where they are). Every cell on the screen stays as it was.
 */
import type { Terminal } from '@xterm/headless';
import { openLink, penLinkId, rowsAddedToLink } from './penReplay';
import { savedCursorReplay } from './savedCursor';
import { linkIdsInternals, linkLinesInternals, normalBufferInternals } from './xtermInternals';

const ORIGIN_OFF = '\x1b[?6l';

/** Whether the pen's link is kept for a line of the normal screen's scrollback, the normal screen shown. */
export function penLinkKeptAbove(term: Terminal): boolean {
  const urlId = penLinkId(term);
  if (!urlId || term.buffer.active.type !== 'normal') return false;
  return linkLinesInternals(term, urlId, normalBufferInternals(term)).some((line) => line < term.buffer.normal.baseY);
}

/**
 * The pen's link given a line of the viewer's scrollback (`penLinkKeptAbove`), after the screen's
 * cells, in a viewer with the program's auto-wrap and the pen's link open (`opened`: added to it;
 * otherwise opened here, and left open). Ends with whole-screen margins, origin mode off, the
 * cursor anywhere, the default pen, and the saved cursor written again (xterm.js counts its row
 * with the scrollback, which grew by one); '' when the screen has no free row, or the link is not kept above.
 */
export function scrollbackLinkReplay(term: Terminal, opened: boolean): string {
  if (!penLinkKeptAbove(term)) return '';
  const free = freeRow(term);
  if (free === undefined) return '';
  const urlId = penLinkId(term);
  const link = opened ? rowsAddedToLink(term, [0], term.modes.wraparoundMode) : `\x1b[1;1H${openLink(term, urlId)}`;
  // The default pen: the rows inserted are blank in the pen's background.
  const pushed = `\x1b[0m\x1b[1;${free + 1}r\x1b[L${link}\x1b[${free + 1};1H\n\x1b[r`;
  return `${term.modes.originMode ? ORIGIN_OFF : ''}${pushed}${savedCursorReplay(normalBufferInternals(term), term.rows, term.cols)}`;
}

/**
 * The lowest row of the screen with no character and the default background, no link kept for it,
 * neither wrapped onto nor from (deleting it would join or split a line); undefined when none.
 */
function freeRow(term: Terminal): number | undefined {
  const buffer = term.buffer.normal;
  const screen = normalBufferInternals(term);
  const linked = new Set(linkIdsInternals(term).flatMap((id) => linkLinesInternals(term, id, screen).map((line) => line - buffer.baseY)));
  const cell = buffer.getNullCell();
  for (let y = term.rows - 1; y >= 0; y--) {
    const line = buffer.getLine(buffer.baseY + y);
    if (!line || linked.has(y) || line.isWrapped || buffer.getLine(buffer.baseY + y + 1)?.isWrapped) continue;
    let blank = true;
    for (let x = 0; x < term.cols && blank; x++) blank = line.getCell(x, cell)?.getChars() === '' && cell.isBgDefault();
    if (blank) return y;
  }
  return undefined;
}
