/**
 * After a screen's cells, what decides where and how the program's next output is drawn: the
 * character sets, the cursor (with the scroll margins, origin and insert modes) and the pen. The
 * cursor is put back before the sets, while ASCII is in use (it may be by writing a character),
 * unless putting the set in use back moves it (DECRC): then after them, in that set. The pen last
 * (both may change it).
 */
import type { Terminal } from '@xterm/headless';
import { carriesPenLink } from './bothScreensLink';
import { RESET_PEN } from './cellDraw';
import { CharsetReplayOptions, charsetReplay, restoresSetInUse } from './charsetReplay';
import { cursorReplay, pendingCellLink, wrapPending } from './cursorReplay';
import { penLink, penLinkHasId, penLinkOnItsRows, penSgr } from './penReplay';
import { scrollbackLinkReplay } from './scrollbackLink';
import { charsetInternals } from './xtermInternals';

/**
 * From a viewer whose cells are the program's, with any cursor, pen and modes, G0–G3 as
 * `charsetReplay` expects them. The pen's hyperlink is opened on the rows the program's has
 * (`penLinkOnItsRows`). When the cursor is put back by writing a character (a pending wrap) that is
 * not in it, which ends it, it is opened again after, on the cursor's row: a link with an id goes
 * on as the same link; one without has no other row (it was opened after that character, and no
 * character was written in it since, or the cursor would have moved). `options.bothScreens`: the
 * viewer may be switched to its alternate screen and back (a snapshot), which a set in use may
 * need (`charsetReplay`), and a link without an id may be left open across (`carriesPenLink`).
 */
export function writingStateReplay(term: Terminal, options: CharsetReplayOptions = {}): string {
  const penOwnLink = penLink(term);
  // Already open in the viewer, from the normal screen's rows (`carriesPenLink`): opening it again would make another.
  const carried = options.bothScreens === true && carriesPenLink(term);
  // The character the pending wrap comes after is written again: in the pen's link, it keeps it open.
  const keptOpen = wrapPending(term) && penOwnLink !== '' && pendingCellLink(term) === penOwnLink ? penOwnLink : undefined;
  const reopened = wrapPending(term) && !keptOpen && !carried;
  const linkOnItsRows = carried || (reopened && !penLinkHasId(term)) ? '' : penLinkOnItsRows(term);
  const restores = restoresSetInUse(term, options);
  // Before the cursor and the sets: it rewrites the saved cursor (its DEC graphics in G0, which the
  // sets after put right), which DECRC restores the set in use from when `restores`.
  const aboveLink = carried || reopened ? '' : scrollbackLinkReplay(term, !!linkOnItsRows);
  const opened = linkOnItsRows || aboveLink;
  const link = !carried && (reopened || !opened) ? penOwnLink : '';
  const pen = `${RESET_PEN}${penSgr(term)}${link}`;
  // The link open in the viewer: a character written again that is not in it ends it first.
  const open = carried || opened ? penOwnLink : undefined;
  if (!restores) return `${linkOnItsRows}${aboveLink}${cursorReplay(term, undefined, open)}${charsetReplay(term, options)}${pen}`;
  // The link on its rows before the scrollback line that adds to it (its dropped wide characters are
  // drawn alike in either set; DECRC, which puts back the pen's colours alone, leaves the link open).
  const linkAndSets = aboveLink ? `${linkOnItsRows}${aboveLink}${charsetReplay(term, options)}` : `${charsetReplay(term, options)}${linkOnItsRows}`;
  return `${linkAndSets}${cursorReplay(term, charsetInternals(term)?.charset, open)}${pen}`;
}
