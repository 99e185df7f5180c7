/**
 * After a screen's cells, what decides where and how the program's next output is drawn: the
 * character sets, the cursor (with the scroll margins, origin and insert modes) and the pen. The
 * cursor is put back before the sets, while ASCII is in use (it may be by writing a character),
 * unless putting the set in use back moves it (DECRC): then after them, in that set. The pen last
 * (both may change it).
 */
import type { Terminal } from '@xterm/headless';
import { RESET_PEN } from './cellDraw';
import { CharsetReplayOptions, charsetReplay, restoresSetInUse } from './charsetReplay';
import { cursorReplay, wrapPending } from './cursorReplay';
import { penLink, penLinkOnItsRows, penSgr } from './penReplay';
import { charsetInternals } from './xtermInternals';

/**
 * From a viewer whose cells are the program's, with any cursor, pen and modes, G0–G3 as
 * `charsetReplay` expects them. The pen's hyperlink is opened on the rows the program's has
 * (`penLinkOnItsRows`), except when the cursor is put back by writing a character, which ends it:
 * then on the cursor's row. `options.bothScreens`: the viewer may be switched to its alternate screen
 * and back (a snapshot), which a set in use may need (`charsetReplay`).
 */
export function writingStateReplay(term: Terminal, options: CharsetReplayOptions = {}): string {
  const pending = wrapPending(term);
  const linkOnItsRows = pending ? '' : penLinkOnItsRows(term);
  const link = linkOnItsRows ? '' : penLink(term);
  const pen = `${RESET_PEN}${penSgr(term)}${link}`;
  if (!restoresSetInUse(term, options)) return `${linkOnItsRows}${cursorReplay(term)}${charsetReplay(term, options)}${pen}`;
  return `${charsetReplay(term, options)}${linkOnItsRows}${cursorReplay(term, charsetInternals(term)?.charset)}${pen}`;
}
