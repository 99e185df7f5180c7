/**
 * The pen a terminal writes its next character in, as the sequences that set it from the default
 * pen: SGR with the underline's style and colour, and the hyperlink (OSC 8) it is writing.
 */
import type { IBuffer, Terminal } from '@xterm/headless';
import { sgrOf } from './sgr';
import { BufferInternals, linkInternals, linkLinesInternals, penInternals } from './xtermInternals';

/** OSC 8 with no link: ends the one being written. */
export const END_LINK = '\x1b]8;;\x1b\\';
const ORIGIN_OFF = '\x1b[?6l';
const WRAP_OFF = '\x1b[?7l';
const WRAP_ON = '\x1b[?7h';
/** A wide character written at the last column with auto-wrap off: it does not fit, and xterm.js drops it. */
export const DROPPED_WIDE_CHARACTER = '\u4e00';
/**
 * Rows added to a hyperlink by a dropped wide character, each moved to with HVP (which nothing else
 * in a snapshot writes): VTE and kitty draw a wide character that does not fit at the second-to-last
 * column instead of dropping it, so `paddock attach` takes these out (`withoutScreenSwitches`).
 */
// eslint-disable-next-line no-control-regex -- the sequence is made of escapes
export const ROWS_ADDED_TO_LINK = /\x1b\[\d+;\d+f\u4e00/g;
/** Too narrow for a dropped wide character: with one column there are no last two cells to check (kitty draws it in the one there). */
export const NARROWEST_FOR_DROPPED_WIDE = 3;

/** The pen's colours, flags and underline style and colour (SGR), from the default pen. */
export function penSgr(term: Terminal): string {
  const pen = penInternals(term);
  return pen ? sgrOf(pen, pen.extended) : '';
}

/**
 * The OSC 8 of the hyperlink the program's next character is written in; '' when none. Read while
 * the pen has it (DECRC, which xterm.js restores only colours and flags with, leaves it aside
 * until an SGR).
 */
export function penLink(term: Terminal): string {
  const urlId = penLinkId(term);
  return urlId ? openLink(term, urlId) : '';
}

/** Whether the pen's hyperlink has an id (OSC 8 with it adds a row to the same link). */
export function penLinkHasId(term: Terminal): boolean {
  const urlId = penLinkId(term);
  return !!urlId && !!linkInternals(term, urlId)?.id;
}

/**
 * The pen's hyperlink opened on the rows of the screen xterm.js keeps it for (where it was opened,
 * and where characters were written in it): it forgets a link once each of those rows is erased,
 * and characters written in it after that have none; a link opened on another row would outlive
 * the program's, or end before it. A link with an id is opened on each (OSC 8 with the same id
 * adds a row to it). One without is one link for all of them in the program's terminal, but each
 * OSC 8 makes a new one: it is opened on one row and the others are added to it as writing in it
 * does, with nothing written (`rowsAddedToLink`). Moves the cursor, and turns origin mode off (rows
 * outside the margins are reached); '' with no link, or none of its rows on the shown screen (a
 * link the program opened on the other screen: a viewer opens it where it is, which may outlive
 * the program's).
 */
export function penLinkOnItsRows(term: Terminal): string {
  const urlId = penLinkId(term);
  const buffer = term.buffer.active;
  const opened = linkOnRows(term, urlId, buffer, linkRows(term, urlId, buffer), term.modes.wraparoundMode);
  return opened && `${term.modes.originMode ? ORIGIN_OFF : ''}${opened}`;
}

/** The pen's hyperlink (xterm.js's number for it); 0 for none. */
export function penLinkId(term: Terminal): number {
  const pen = penInternals(term);
  return (pen?.hasExtendedAttrs?.() ? pen.extended?.urlId : 0) ?? 0;
}

/** The rows of `buffer`'s screen (`screen`: its internals, the shown one's when not given) that xterm.js keeps the link `urlId` for. */
export function linkRows(term: Terminal, urlId: number, buffer: IBuffer, screen?: BufferInternals): number[] {
  if (!urlId) return [];
  return [...new Set(linkLinesInternals(term, urlId, screen).map((line) => line - buffer.baseY))]
    .filter((row) => row >= 0 && row < term.rows)
    .sort((a, b) => a - b);
}

/**
 * The link `urlId` opened on `rows` of `buffer`'s screen (shown, origin mode off), as
 * `penLinkOnItsRows` says; `wrapOn`: the viewer's auto-wrap there. Left open; '' when no row.
 */
export function linkOnRows(term: Terminal, urlId: number, buffer: IBuffer, rows: number[], wrapOn: boolean): string {
  const link = urlId ? openLink(term, urlId) : '';
  if (!link || rows.length === 0) return '';
  if (linkInternals(term, urlId)?.id) return rows.map((row) => `\x1b[${row + 1};1H${link}`).join('');
  // Opened where a row cannot be added to it (its last two cells are a wide character), if anywhere.
  const opened = rows.find((row) => !canAddRow(buffer, row, term.cols)) ?? rows[0];
  const added = rows.filter((row) => row !== opened && canAddRow(buffer, row, term.cols));
  return `\x1b[${opened + 1};1H${link}${rowsAddedToLink(term, added, wrapOn)}`;
}

/**
 * xterm.js adds the cursor's row to the pen's link for each character it is given, before it
 * knows where the character goes; a wide character at the last column with auto-wrap off goes
 * nowhere (it does not fit, and is dropped). Auto-wrap is left as it is (`wrapOn`). Not in a
 * terminal narrower than 3 columns; and not for `paddock attach` (`ROWS_ADDED_TO_LINK`).
 */
export function rowsAddedToLink(term: Terminal, rows: number[], wrapOn: boolean): string {
  if (rows.length === 0 || term.cols < NARROWEST_FOR_DROPPED_WIDE) return '';
  const added = rows.map((row) => `\x1b[${row + 1};${term.cols}f${DROPPED_WIDE_CHARACTER}`).join('');
  return wrapOn ? `${WRAP_OFF}${added}${WRAP_ON}` : added;
}

/**
 * Whether a dropped wide character adds `row` with its cells left as they are: not when its last
 * two cells hold a wide character, which xterm.js erases when it is given a character on either.
 */
function canAddRow(buffer: IBuffer, row: number, cols: number): boolean {
  return buffer.getLine(buffer.baseY + row)?.getCell(cols - 2)?.getWidth() !== 2;
}

/** OSC 8 for the link `id` of `term`; its text came from the program, and stays text (xterm.js keeps no control character in it). */
export function openLink(term: Terminal, id: number): string {
  const link = linkInternals(term, id);
  if (!link) return '';
  return `\x1b]8;${link.id ? `id=${strip(link.id)}` : ''};${strip(link.uri)}\x1b\\`;
}

function strip(text: string): string {
  // eslint-disable-next-line no-control-regex -- the controls that would end or garble the sequence
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, '');
}
