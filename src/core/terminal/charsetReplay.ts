/**
 * The character sets designated and the one in use: a program that switched to DEC line drawing
 * (`ESC ( 0`, or `ESC ) 0` then SO, as ncurses does) and draws on prints `lqqk` as letters in a
 * viewer that was not told. Only DEC special graphics is replayed: it is the set programs use,
 * and the only one besides ASCII that tmux knows.
 */
import type { Terminal } from '@xterm/headless';
import { carriesSetInUse, DESIGNATORS, SHIFTS } from './carriedCharset';
import { activeBufferInternals, alternateBufferInternals, charsetInternals, isDecGraphics } from './xtermInternals';

export { isDecGraphics };
const RESTORE_CURSOR = '\x1b8';
/** The set in use already restored before the switch to the alternate screen (`carriedSetInUseReplay`). */
const CARRIED = 'carried';
/** The alternate screen entered and left without saving or restoring the cursor, or erasing the normal screen. */
const ENTER_ALTERNATE_ONLY = '\x1b[?1047h';
const LEAVE_ALTERNATE_ONLY = '\x1b[?1047l';

/**
 * The set in use put back from the alternate screen's DECSC slot while the normal screen is shown
 * (`?1047h`, a designation, ESC 8, `?1047l`): a viewer that keeps one screen for the session
 * (`paddock attach`, on the outer terminal's alternate screen) drops it whole, and is left with the
 * set in use designated where it is shifted from (until the agent's next shift, which `paddock
 * attach` gives the agent's own designation before: `CarriedDesignation`).
 */
// eslint-disable-next-line no-control-regex -- the sequence is made of escapes
export const SET_IN_USE_FROM_ALTERNATE_SLOT = /\x1b\[\?1047h\x1b[()*+][0B]\x1b8\x1b\[\?1047l/g;

/** Whether the viewer is a terminal with both screens: not a line over `paddock attach`'s screen, written to the outer terminal itself. */
export interface CharsetReplayOptions {
  bothScreens?: boolean;
}

/**
 * In a viewer with ASCII in G0–G3 (or the program's sets in those this does not designate) and
 * G0 in use. The set in use may not be the one designated where it was shifted from: DECRC (and
 * leaving the alternate screen) puts the saved set in use without designating it, so a program
 * that left the alternate screen draws in ASCII with DEC line drawing still in G0 for its next SI.
 * That is had again the same way, DECRC (`setInUseRestore`: then the cursor and the pen have to be
 * put back after this); when no slot holds the set in use, the set in use is designated. Nothing
 * when the snapshot restored it before its switch to the alternate screen (`carriesSetInUse`).
 */
export function charsetReplay(term: Terminal, options: CharsetReplayOptions = {}): string {
  const service = charsetInternals(term);
  if (!service) return '';
  const level = service.glevel ?? 0;
  const designated = service._charsets ?? [];
  const restore = setInUseRestore(term, options);
  if (restore === CARRIED) return '';
  let out = '';
  for (let slot = 0; slot < DESIGNATORS.length; slot++) {
    // Designated apart first where the restore is from the other screen: what is left where it is dropped.
    const apart = slot === level && restore !== RESTORE_CURSOR && isDecGraphics(service.charset) !== isDecGraphics(designated[slot]);
    if (apart ? isDecGraphics(service.charset) : isDecGraphics(designated[slot])) out += `\x1b${DESIGNATORS[slot]}0`;
  }
  if (level !== 0) out += SHIFTS[level];
  if (restore === RESTORE_CURSOR) return out + RESTORE_CURSOR;
  if (!restore) return out;
  return `${out}${ENTER_ALTERNATE_ONLY}\x1b${DESIGNATORS[level]}${isDecGraphics(designated[level]) ? '0' : 'B'}${RESTORE_CURSOR}${LEAVE_ALTERNATE_ONLY}`;
}

/** Whether `charsetReplay` puts the set in use back with DECRC (which moves the cursor and sets the pen). */
export function restoresSetInUse(term: Terminal, options: CharsetReplayOptions = {}): boolean {
  return setInUseRestore(term, options) !== '';
}

/**
 * How the set in use comes back when it is apart from the one designated where it is shifted
 * from: DECRC from the shown screen's slot when it holds that set; else, the normal screen shown,
 * from the alternate screen's (a program that restored a cursor there and left with `?1047l`,
 * which restores none: its own slot holds the set it saved before), entered and left for it
 * without saving or restoring (xterm.js keeps that slot, and the set in use, across the switches).
 * With the alternate screen shown and neither slot of the shown screen nor designation holding it,
 * it is the normal screen's slot's, restored before the switch (`carriesSetInUse`, a viewer with
 * both screens). '' when not apart, or when no slot holds the set (a viewer with one screen): then
 * the set in use is designated.
 */
function setInUseRestore(term: Terminal, { bothScreens = false }: CharsetReplayOptions): string {
  const service = charsetInternals(term);
  if (!service) return '';
  const inUse = isDecGraphics(service.charset);
  if (inUse === isDecGraphics(service._charsets?.[service.glevel ?? 0])) return '';
  if (isDecGraphics(activeBufferInternals(term)?.savedCharset) === inUse) return RESTORE_CURSOR;
  if (bothScreens && carriesSetInUse(term)) return CARRIED;
  const alternate = alternateBufferInternals(term);
  if (!bothScreens || term.buffer.active.type !== 'normal' || !alternate || isDecGraphics(alternate.savedCharset) !== inUse) return '';
  return ENTER_ALTERNATE_ONLY;
}
