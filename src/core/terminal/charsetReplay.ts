/**
 * The character sets designated and the one in use: a program that switched to DEC line drawing
 * (`ESC ( 0`, or `ESC ) 0` then SO, as ncurses does) and draws on prints `lqqk` as letters in a
 * viewer that was not told. Only DEC special graphics is replayed: it is the set programs use,
 * and the only one besides ASCII that tmux knows.
 */
import type { Terminal } from '@xterm/headless';
import { activeBufferInternals, CharsetInternals, charsetInternals } from './xtermInternals';

/** ESC ( ) * + designate G0–G3. */
const DESIGNATORS = ['(', ')', '*', '+'];
/** SI, SO, LS2, LS3 shift G0–G3 into use. */
const SHIFTS = ['\x0f', '\x0e', '\x1bn', '\x1bo'];
const RESTORE_CURSOR = '\x1b8';

/**
 * In a viewer with ASCII in G0–G3 (or the program's sets in those this does not designate) and
 * G0 in use. The set in use may not be the one designated where it was shifted from: DECRC (and
 * leaving the alternate screen) puts the saved set in use without designating it, so a program
 * that left the alternate screen draws in ASCII with DEC line drawing still in G0 for its next SI.
 * That is had again the same way, DECRC, when the saved cursor's set is the one in use
 * (`restoresSetInUse`: then the cursor and the pen have to be put back after this); otherwise the
 * set in use is designated.
 */
export function charsetReplay(term: Terminal): string {
  const service = charsetInternals(term);
  if (!service) return '';
  const level = service.glevel ?? 0;
  const designated = service._charsets ?? [];
  const restored = restoresSetInUse(term);
  let out = '';
  for (let slot = 0; slot < DESIGNATORS.length; slot++) {
    const apart = slot === level && !restored && isDecGraphics(service.charset) !== isDecGraphics(designated[slot]);
    if (apart ? isDecGraphics(service.charset) : isDecGraphics(designated[slot])) out += `\x1b${DESIGNATORS[slot]}0`;
  }
  if (level !== 0) out += SHIFTS[level];
  return restored ? out + RESTORE_CURSOR : out;
}

/** Whether `charsetReplay` puts the set in use back with DECRC (which moves the cursor and sets the pen). */
export function restoresSetInUse(term: Terminal): boolean {
  const service = charsetInternals(term);
  if (!service) return false;
  const inUse = isDecGraphics(service.charset);
  const apart = inUse !== isDecGraphics(service._charsets?.[service.glevel ?? 0]);
  return apart && isDecGraphics(activeBufferInternals(term)?.savedCharset) === inUse;
}

/** xterm.js's DEC special graphics map (`q` is the horizontal line). */
export function isDecGraphics(set: CharsetInternals): boolean {
  return !!set && set.q === '\u2500';
}
