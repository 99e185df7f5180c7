/**
 * The pen's hyperlink kept for rows of both screens, the alternate one shown. A program that opened
 * a link on its normal screen and went on to its alternate one keeps the link as long as a row of
 * the normal screen holds it (nothing erases those while the alternate screen is shown), and goes
 * on writing in it after leaving (which forgets the alternate screen's rows). A viewer given the
 * link on the alternate screen's rows alone forgot it there, and the agent's next characters came
 * out underlined with no link. xterm.js adds a row to a link only on the screen shown: the snapshot
 * opens it on the normal screen's rows before its switch to the alternate one.
 */
import type { Terminal } from '@xterm/headless';
import { END_LINK, linkOnRows, linkRows, openLink, penLinkId } from './penReplay';
import { scrollbackLinkBeforeSwitch, scrollbackLinkBeforeSwitchGiven } from './scrollbackLink';
import { AttributesInternals, linkInternals, normalBufferInternals } from './xtermInternals';

/** The rows of the normal screen the pen's link is kept for, while the alternate one is shown. */
function normalScreenRows(term: Terminal): number[] {
  if (term.buffer.active.type !== 'alternate') return [];
  return linkRows(term, penLinkId(term), term.buffer.normal, normalBufferInternals(term));
}

/**
 * Whether the pen's link is one without an id kept for rows of the normal screen, carried open
 * across the snapshot's switch: each OSC 8 without an id makes a new link, so the pen's is the one
 * opened on the normal screen or one that ends when the agent leaves. Only when every character of
 * the alternate screen is in it: they are all drawn in it (one outside it would end it for good).
 * Otherwise a viewer cannot be given it (the link is opened on the alternate screen's rows alone).
 */
export function carriesPenLink(term: Terminal): boolean {
  const urlId = penLinkId(term);
  if (!urlId || linkInternals(term, urlId)?.id) return false;
  if (normalScreenRows(term).length === 0 && !scrollbackLinkBeforeSwitchGiven(term)) return false;
  const buffer = term.buffer.alternate;
  const cell = buffer.getNullCell();
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    for (let x = 0; line && x < term.cols; x++) {
      line.getCell(x, cell);
      if (cell.getChars() === '') continue;
      const attrs = cell as unknown as AttributesInternals;
      if (!attrs.hasExtendedAttrs?.() || attrs.extended?.urlId !== urlId) return false;
    }
  }
  return true;
}

/** The OSC 8 the viewer is left writing in by `penLinkBeforeSwitch`; undefined when none. */
export function carriedPenLink(term: Terminal): string | undefined {
  return carriesPenLink(term) ? openLink(term, penLinkId(term)) : undefined;
}

/**
 * Before the switch to the alternate screen, in a viewer with auto-wrap on and origin mode off
 * (the serializer sets its modes after both screens): the pen's link opened on the normal screen's
 * rows it is kept for, and given a line of the scrollback when it is kept for one there
 * (`scrollbackLinkBeforeSwitch`, bug 130). With an id, ended again (the alternate screen's rows,
 * opened after the switch, join the same link); without one, left open when it is carried
 * (`carriesPenLink`), else nothing. Moves the cursor; '' when the link has no row there.
 */
export function penLinkBeforeSwitch(term: Terminal): string {
  const urlId = penLinkId(term);
  const rows = normalScreenRows(term);
  const above = scrollbackLinkBeforeSwitchGiven(term);
  if (rows.length === 0 && !above) return '';
  const hasId = !!linkInternals(term, urlId)?.id;
  if (!hasId && !carriesPenLink(term)) return '';
  const onRows = linkOnRows(term, urlId, term.buffer.normal, rows, true);
  const opened = `${onRows}${above ? scrollbackLinkBeforeSwitch(term, onRows !== '') : ''}`;
  return hasId ? `${opened}${END_LINK}` : opened;
}
