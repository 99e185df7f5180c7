/**
 * What the serializer leaves out of a screen that a viewer needs to go on exactly as the
 * program's own terminal does: the output after the snapshot may scroll inside margins, restore
 * a saved cursor (ESC 8), tab to a stop the program set or draw box lines in the DEC graphics
 * set, and each of those lands elsewhere, or prints other characters, in a terminal that was
 * only given the cells. `replayableScreen` adds them to the serializer's text.
 */
import type { IBuffer, Terminal } from '@xterm/headless';
import { carriedPenLink, carriesPenLink, penLinkBeforeSwitch } from './bothScreensLink';
import { carriedSetInUseReplay, carriesSetInUse } from './carriedCharset';
import { cellRedraws } from './cellRedraw';
import { isDecGraphics } from './charsetReplay';
import { END_LINK } from './penReplay';
import { RESTORE_OUTSIDE_LINK, SAVE_OUTSIDE_LINK, SAVED_PEN_MARK, savedCursorReplay, savedPenMarked, savedPosition } from './savedCursor';
import { backgroundSgr, sgrOf } from './sgr';
import { writingStateReplay } from './writingState';
import { activeBufferInternals, alternateBufferInternals, BufferInternals, normalBufferInternals } from './xtermInternals';

const ENTER_ALTERNATE = '\x1b[?1049h';
const TAB_WIDTH = 8;
/** A snapshot's viewer has both screens (`paddock attach` drops what it cannot draw on one: `withoutScreenSwitches`). */
const BOTH_SCREENS = { bothScreens: true };

/** The serializer's `serialized` text of `term`, completed with the state it leaves out. */
export function replayableScreen(term: Terminal, serialized: string): string {
  const normal = normalBufferInternals(term);
  const screen =
    (term.buffer.active.type === 'normal' ? alternateSlotReplay(term) : '') +
    tabStopsReplay(normal, term.cols) +
    savedCursorReplay(normal, term.rows, term.cols) +
    backgroundRowsReplay(term.buffer.normal, term.rows) +
    serialized;
  const switchAt = screen.indexOf(ENTER_ALTERNATE);
  if (term.buffer.active.type !== 'alternate' || switchAt < 0 || !normal) {
    return screen + cellRedraws(term, () => screen).shown + writingStateReplay(term, BOTH_SCREENS);
  }
  const [before, after] = alternateScreenState(term, normal);
  const withState = (normalRedraws: string) =>
    `${screen.slice(0, switchAt)}${normalRedraws}${before}${ENTER_ALTERNATE}${after}${screen.slice(switchAt + ENTER_ALTERNATE.length)}`;
  // The cells are compared with what a viewer draws from the whole replay; the normal screen's are
  // drawn again (and moved: `movedRowsReplay`) before its state is set for the switch (which saves the cursor, pen and set).
  const redraws = cellRedraws(term, withState, carriedPenLink(term));
  return withState(redraws.normal) + redraws.shown + writingStateReplay(term, BOTH_SCREENS);
}

/**
 * Around the serializer's switch to the alternate screen. Before it, the normal screen's margins,
 * and the cursor, pen and character set of its DECSC slot, which the switch saves into it (the
 * program gets them back when it leaves; and a program that switched without saving, `?1047h`, may
 * have another cursor there than the one it left); the normal screen's own cursor is not needed
 * (leaving the alternate screen sets it). After it, a default pen and ASCII, which the
 * serializer's alternate screen assumes (it would otherwise be drawn in the pen the normal screen
 * ended with), the screen erased in it (the switch fills it in the saved pen's background, and the
 * program's may have been erased in another since), and the alternate screen's own tab stops and
 * saved cursor. A set in use that only the normal screen's slot holds is restored before the switch
 * instead, the alternate screen's slot written first (`carriesSetInUse`), and the alternate screen is drawn in it.
 * The pen's hyperlink is opened on the normal screen's rows it is kept for (`penLinkBeforeSwitch`).
 * A slot whose pen has xterm.js's mark of a link is saved with one open (`SAVED_PEN_MARK`).
 */
function alternateScreenState(term: Terminal, normal: BufferInternals): [before: string, after: string] {
  const saved = normal.savedCurAttrData ? sgrOf(normal.savedCurAttrData) : '';
  const margins = normalScreenMargins(term, normal);
  const slot = `${margins}${savedPosition(normal, term.rows, term.cols)}\x1b[0m${saved}`;
  // The pen's link carried open across the switch, the viewer writes in it on the alternate screen.
  const carried = carriesPenLink(term);
  // The switch saves the pen with xterm.js's mark of a link when one is open (`SAVED_PEN_MARK`, bug 145).
  const [mark, unmark] = savedPenMarked(normal) && !carried ? [SAVED_PEN_MARK, END_LINK] : ['', ''];
  // xterm.js keeps each screen's tab stops (the alternate screen's from its last use).
  const alternate = activeBufferInternals(term);
  const rest = `\x1b[2J${tabStopsReplay(alternate, term.cols)}`;
  // First: it moves the cursor, which the switch saves.
  const link = penLinkBeforeSwitch(term);
  const alternateSlot = savedCursorReplay(alternate, term.rows, term.cols);
  // The viewer saves a slot with the carried link open, and so with the mark, where the program's pen
  // may have none (saved outside the link). The normal screen's is then set before the link is
  // opened, saved, and restored after it (`SAVE_OUTSIDE_LINK`): the restore takes the pen's colours
  // without the mark and leaves the link, which SGR 0 marks again after the switch; a scrollback line
  // for the link writes the slot again so (`savedCursorAgain`). The link moves the cursor, and a
  // scrollback line for it sets whole-screen margins: the normal screen's are set again before the restore.
  const unmarked = carried && !savedPenMarked(normal);
  const outsideLink = `${SAVE_OUTSIDE_LINK}${link}${margins}${RESTORE_OUTSIDE_LINK}`;
  if (carriesSetInUse(term)) {
    // The alternate screen's slot first (kept across the switches: `alternateSlotReplay`), then the set in use, kept by the switch.
    const slotAndSet = unmarked ? `${slot}${carriedSetInUseReplay(term)}${outsideLink}` : `${link}${slot}${carriedSetInUseReplay(term)}${mark}`;
    return [`\x1b[?1047h${alternateSlot}\x1b[?1047l${slotAndSet}`, `${unmark}\x1b[0m${rest}${backgroundRowsReplay(term.buffer.alternate, term.rows)}`];
  }
  const graphics = isDecGraphics(normal.savedCharset) ? '\x1b(0' : '';
  // With the link carried, the alternate screen's slot is written before the link is opened too
  // (kept across the switches: `alternateSlotReplay`), from the default pen (the serializer's pen is
  // the one it ended with); after the switch, when its pen has the mark.
  const [early, late] = carried && !savedPenMarked(alternate) ? [`\x1b[?1047h\x1b[0m${alternateSlot}\x1b[?1047l`, ''] : ['', savedCursorReplay(alternate, term.rows, term.cols, carried)];
  const before = unmarked ? `${early}${slot}${graphics}${outsideLink}` : `${early}${link}${slot}${graphics}${mark}`;
  return [before, `${unmark}\x1b[0m\x1b(B${rest}${late}${backgroundRowsReplay(term.buffer.alternate, term.rows)}`];
}

/** The normal screen's own margins, while the program shows the alternate one (setting them homes the cursor). */
function normalScreenMargins(term: Terminal, normal: BufferInternals): string {
  const { scrollTop: top, scrollBottom: bottom } = normal;
  if (typeof top !== 'number' || typeof bottom !== 'number') return '';
  if (top === 0 && bottom === term.rows - 1) return '';
  return `\x1b[${top + 1};${bottom + 1}r`;
}

/**
 * The alternate screen's DECSC slot while the normal one is shown: xterm.js keeps it from the
 * alternate screen's last use (leaving clears the rest of that screen), and a program that comes
 * back may restore it (ESC 8) without saving first. Written on the alternate screen entered and left
 * without saving or restoring the cursor (`?1047`), first: a terminal with one slot for both screens
 * ends with the normal screen's, written next. Nothing for a slot never used.
 */
function alternateSlotReplay(term: Terminal): string {
  const alternate = alternateBufferInternals(term);
  const pen = alternate?.savedCurAttrData ? sgrOf(alternate.savedCurAttrData) : '';
  if (!alternate || (!alternate.savedX && !alternate.savedY && !pen && !isDecGraphics(alternate.savedCharset))) return '';
  return `\x1b[?1047h${savedCursorReplay(alternate, term.rows, term.cols)}\x1b[?1047l`;
}

/**
 * Rows with no character but a background colour (a program that paints its background with
 * `CSI 44 m CSI 2 J`, or erases lines in colour): the serializer leaves out the rows after the
 * last one with a character, so a viewer drew them in the default background. Painted with ECH
 * (which erases in the pen's background) before the cells, where the serializer does not write;
 * ends at home with the default pen.
 */
function backgroundRowsReplay(buffer: IBuffer, rows: number): string {
  const first = buffer.length - rows;
  const cell = buffer.getNullCell();
  let out = '';
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(first + y);
    if (!line) continue;
    let row = '';
    let runStart = 0;
    let runBackground: string | undefined;
    const endRun = (x: number) => {
      if (runBackground !== undefined) row += `\x1b[${y + 1};${runStart + 1}H${runBackground}\x1b[${x - runStart}X`;
    };
    let hasText = false;
    for (let x = 0; x < line.length && !hasText; x++) {
      line.getCell(x, cell);
      if (cell.getChars() !== '') hasText = true;
      const background = cell.isBgDefault() ? undefined : backgroundSgr(cell.getBgColorMode(), cell.getBgColor());
      if (background === runBackground) continue;
      endRun(x);
      runStart = x;
      runBackground = background;
    }
    // A row with characters is the serializer's, backgrounds included.
    if (hasText) continue;
    endRun(line.length);
    out += row;
  }
  return out ? `${out}\x1b[0m\x1b[H` : '';
}

/** Tab stops the program set or cleared (HTS, TBC), when they are not a terminal's every 8 columns. */
function tabStopsReplay(buffer: BufferInternals | undefined, cols: number): string {
  const tabs = buffer?.tabs;
  if (!tabs) return '';
  // Column 0 is never tabbed to: whether it holds a stop does not matter.
  const stops = Object.keys(tabs)
    .map(Number)
    .filter((x) => tabs[x] && x > 0 && x < cols)
    .sort((a, b) => a - b);
  const usual = stops.length === Math.ceil(cols / TAB_WIDTH) - 1 && stops.every((x, i) => x === (i + 1) * TAB_WIDTH);
  if (usual) return '';
  return `\x1b[3g${stops.map((x) => `\x1b[1;${x + 1}H\x1bH`).join('')}\x1b[H`;
}
