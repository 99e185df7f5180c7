/**
 * DECSC's slot as a viewer is given it. xterm.js keeps its row counted with the scrollback, so
 * a replay that pushes a row into the viewer's scrollback (`scrollbackLink.ts`) writes it again.
 */
import { isDecGraphics } from './charsetReplay';
import { END_LINK } from './penReplay';
import { sgrOf } from './sgr';
import type { AttributesInternals, BufferInternals } from './xtermInternals';

/**
 * A hyperlink no character is ever written in, open while the viewer saves a slot whose pen has
 * xterm.js's mark that it holds a link or an underline style (bug 145). DECRC (and leaving the
 * alternate screen with `?1049l`) restores the pen's colours with that mark, but not the link or
 * style, which stay the pen's of then: a program that saved its cursor in a link and restores it
 * while it still holds one goes on writing in it. A slot written with SGR alone has no mark, and
 * the viewer's characters after came out with no link. The mark is only made by a link or a style
 * on the pen, and a style would be saved too (it underlines): a link, with an id so that every use
 * is the same one, kept for the rows it was opened on and for no character.
 */
export const SAVED_PEN_MARK = '\x1b]8;id=paddock-saved-pen;about:blank\x1b\\';

/**
 * The saves `SAVED_PEN_MARK` is open for (ESC 7, or the switch `?1049h`), with it and its end. Only
 * xterm.js needs the mark: a terminal whose ESC 7 saves the pen's link itself (WezTerm, Contour)
 * would give the agent's text after a restore that link, so `paddock attach` keeps the save alone.
 */
// eslint-disable-next-line no-control-regex -- the replay's own escape sequences
export const SAVES_WITH_PEN_MARK = /\x1b\]8;id=paddock-saved-pen;about:blank\x1b\\(\x1b7|\x1b\[\?1049h)\x1b\]8;;\x1b\\/g;

/**
 * Around a hyperlink opened after the slot it must not mark is set (the link carried across the
 * switch, the program's slot saved outside it): the slot is saved before (SCOSC, the same save as
 * ESC 7 in xterm.js) and restored after (SCORC), which takes the pen's colours without the mark and
 * leaves the link open. Written as CSI s and u, which nothing else in a snapshot is, so that `paddock
 * attach` can take both out: its terminal has one slot, which holds the alternate screen's.
 */
export const SAVE_OUTSIDE_LINK = '\x1b[s';
export const RESTORE_OUTSIDE_LINK = '\x1b[u';
// eslint-disable-next-line no-control-regex -- the replay's own escape sequences
export const AROUND_LINK = /\x1b\[[su]/g;

/** Whether the pen of `buffer`'s slot has xterm.js's mark of a link or underline style (which DECRC restores). */
export function savedPenMarked(buffer: BufferInternals | undefined): boolean {
  const pen: AttributesInternals | undefined = buffer?.savedCurAttrData;
  return !!pen?.hasExtendedAttrs?.();
}

/** The position of `buffer`'s DECSC slot, on the screen (DECRC puts it back within it). */
export function savedPosition(buffer: BufferInternals, rows: number, cols: number): string {
  if (typeof buffer.savedX !== 'number' || typeof buffer.savedY !== 'number') return '';
  const row = Math.min(rows - 1, Math.max(0, buffer.savedY - (buffer.ybase ?? 0)));
  const col = Math.min(cols - 1, Math.max(0, buffer.savedX));
  return `\x1b[${row + 1};${col + 1}H`;
}

/**
 * DECSC's slot (ESC 7 or CSI s): programs save the cursor, draw a status line elsewhere and
 * restore it (ESC 8); a viewer with an empty slot would restore to the top-left corner. An empty
 * slot is written too: the viewer's may hold a cursor of its own (the VS Code terminal saves one
 * for its reconnect notice, and the mode reset before a screen saves one around DECSTBM). Written
 * where the cursor is free to move (before the screen's cells, or right after the switch to the
 * alternate screen), it ends at home with the default pen, where the serializer starts.
 * `linkOpen`: the viewer is writing in a hyperlink there (it is left open).
 */
export function savedCursorReplay(buffer: BufferInternals | undefined, rows: number, cols: number, linkOpen = false): string {
  if (!buffer || typeof buffer.savedX !== 'number' || typeof buffer.savedY !== 'number') return '';
  const pen = buffer.savedCurAttrData ? sgrOf(buffer.savedCurAttrData) : '';
  const graphics = isDecGraphics(buffer.savedCharset);
  // With a link open in the viewer the save has the mark already (bug 145).
  const save = savedPenMarked(buffer) && !linkOpen ? `${SAVED_PEN_MARK}\x1b7${END_LINK}` : '\x1b7';
  return `${savedPosition(buffer, rows, cols)}${pen}${graphics ? '\x1b(0' : ''}${save}${pen ? '\x1b[0m' : ''}${graphics ? '\x1b(B' : ''}\x1b[H`;
}


/**
 * `buffer`'s slot, written before (`savedCursorReplay`), written again at its row in a viewer with a
 * hyperlink open, whose pen has the mark then (`scrollbackLink.ts`: xterm.js counts the row with the
 * scrollback, which grew). A pen without the mark is taken back from the slot first (DECRC restores
 * the colours without it and leaves the link); ends as `savedCursorReplay` does, the link left open.
 */
export function savedCursorAgain(buffer: BufferInternals | undefined, rows: number, cols: number): string {
  if (!buffer || savedPenMarked(buffer) || typeof buffer.savedX !== 'number' || typeof buffer.savedY !== 'number') {
    return savedCursorReplay(buffer, rows, cols, true);
  }
  return `\x1b8${savedPosition(buffer, rows, cols)}\x1b7\x1b[0m${isDecGraphics(buffer.savedCharset) ? '\x1b(B' : ''}\x1b[H`;
}
