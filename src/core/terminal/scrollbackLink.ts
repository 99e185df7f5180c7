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
import { savedCursorAgain } from './savedCursor';
import { linkIdsInternals, linkLinesInternals, normalBufferInternals } from './xtermInternals';

const ORIGIN_OFF = '\x1b[?6l';
/**
 * A `scrollbackLinkReplay` in a snapshot, its OSC 8 (if any) kept apart. `paddock attach` draws on
 * its terminal's alternate screen, which has no scrollback, in a terminal that may be shorter than
 * the agent's: there the margins and cursor (for the agent's rows) are clamped to its last row, and
 * IL with LF scrolled away the last row it shows (`withoutScrollbackLink`).
 */
// eslint-disable-next-line no-control-regex -- the replay's own escape sequences
const SCROLLBACK_LINK = /\x1b\[0m(?:\x1b\[\?6l)?\x1b\[1;(\d+)r\x1b\[L([^\n]*?)\x1b\[\1;1H\n[^\n]*?\x1b\[r/g;
// eslint-disable-next-line no-control-regex -- an OSC 8 as `openLink` writes it
const OSC8 = /\x1b\]8;[^\x07\x1b]*\x1b\\/g;

/** Whether the pen's link is kept for a line of the normal screen's scrollback (either screen shown). */
function keptAboveNormal(term: Terminal): boolean {
  const urlId = penLinkId(term);
  return !!urlId && linkLinesInternals(term, urlId, normalBufferInternals(term)).some((line) => line < term.buffer.normal.baseY);
}

/** Whether the pen's link is kept for a line of the normal screen's scrollback, the normal screen shown. */
export function penLinkKeptAbove(term: Terminal): boolean {
  return term.buffer.active.type === 'normal' && keptAboveNormal(term);
}

/**
 * Whether the alternate screen is shown and the pen's link, kept for a line of the normal screen's
 * scrollback, is given one in the viewer before the snapshot's switch (`scrollbackLinkBeforeSwitch`).
 */
export function scrollbackLinkBeforeSwitchGiven(term: Terminal): boolean {
  return term.buffer.active.type === 'alternate' && keptAboveNormal(term) && freeRow(term) !== undefined;
}

/**
 * The pen's link given a line of the viewer's scrollback (`penLinkKeptAbove`), after the screen's
 * cells, in a viewer with the program's auto-wrap and the pen's link open (`opened`: added to it;
 * otherwise opened here, and left open). Ends with whole-screen margins, origin mode off, the
 * cursor anywhere, the default pen, and the saved cursor written again (xterm.js counts its row
 * with the scrollback, which grew by one); '' when the screen has no free row, or the link is not kept above.
 */
export function scrollbackLinkReplay(term: Terminal, opened: boolean): string {
  return penLinkKeptAbove(term) ? pushed(term, opened, term.modes.wraparoundMode) : '';
}

/**
 * The same with the alternate screen shown, on the normal screen before the snapshot's switch to
 * it, in a viewer with auto-wrap on and origin mode off (the serializer sets its modes after both
 * screens): the program leaves the alternate screen and goes on writing in the link (`scrollbackLinkBeforeSwitchGiven`).
 */
export function scrollbackLinkBeforeSwitch(term: Terminal, opened: boolean): string {
  return scrollbackLinkBeforeSwitchGiven(term) ? pushed(term, opened, true) : '';
}

function pushed(term: Terminal, opened: boolean, wrapOn: boolean): string {
  const free = freeRow(term);
  if (free === undefined) return '';
  const urlId = penLinkId(term);
  const link = opened ? rowsAddedToLink(term, [0], wrapOn) : `\x1b[1;1H${openLink(term, urlId)}`;
  // The default pen: the rows inserted are blank in the pen's background. The saved cursor inside
  // the margins (origin mode off: it is addressed on the whole screen), so that the replay ends at
  // `\x1b[r` (`SCROLLBACK_LINK`).
  const saved = savedCursorAgain(normalBufferInternals(term), term.rows, term.cols);
  return `\x1b[0m${term.modes.originMode ? ORIGIN_OFF : ''}\x1b[1;${free + 1}r\x1b[L${link}\x1b[${free + 1};1H\n${saved}\x1b[r`;
}

/**
 * `screen` without its `scrollbackLinkReplay`, for a viewer with no scrollback (`paddock attach`):
 * what it opened of the pen's link stays open, as what follows in the snapshot expects; the saved
 * cursor it wrote again is the one written before the cells (no scrollback line was added).
 */
export function withoutScrollbackLink(screen: string): string {
  return screen.replace(SCROLLBACK_LINK, (_whole, _bottom: string, link: string) => (link.match(OSC8) ?? []).join(''));
}

/**
 * The lowest row of the screen with no character and the default background, no link kept for it,
 * neither wrapped onto nor from (deleting it would join or split a line); undefined when none. Not
 * the top row: the margins from the top down to it need two rows (a terminal ignores DECSTBM with
 * the bottom not below the top, and IL then shifted the whole screen, its last row lost).
 */
function freeRow(term: Terminal): number | undefined {
  const buffer = term.buffer.normal;
  const screen = normalBufferInternals(term);
  const linked = new Set(linkIdsInternals(term).flatMap((id) => linkLinesInternals(term, id, screen).map((line) => line - buffer.baseY)));
  const cell = buffer.getNullCell();
  for (let y = term.rows - 1; y >= 1; y--) {
    const line = buffer.getLine(buffer.baseY + y);
    if (!line || linked.has(y) || line.isWrapped || buffer.getLine(buffer.baseY + y + 1)?.isWrapped) continue;
    let blank = true;
    for (let x = 0; x < term.cols && blank; x++) blank = line.getCell(x, cell)?.getChars() === '' && cell.isBgDefault();
    if (blank) return y;
  }
  return undefined;
}
