/**
 * A set in use carried onto the alternate screen. DECRC (and leaving the alternate screen) puts the
 * saved set in use without designating it; a program that restored on the normal screen and then
 * entered the alternate one shows it with a set in use that is neither the one designated where it
 * is shifted from nor the alternate screen's saved one: `ESC(0 ESC7 ESC(B ?1047h ESC7 ?1047l ESC8
 * ?1047h`, then `SI q` draws `q` (ASCII is in G0) where a viewer that was given the set in use as
 * a designation drew `─`. Only the normal screen's slot holds it, and a viewer cannot restore
 * from that slot on the alternate screen (leaving erases it): the snapshot restores it before the
 * switch, and draws the alternate screen in it, as the program did.
 */
import type { Terminal } from '@xterm/headless';
import { activeBufferInternals, alternateBufferInternals, CharsetInternals, charsetInternals, isDecGraphics, normalBufferInternals } from './xtermInternals';

/** ESC ( ) * + designate G0–G3. */
export const DESIGNATORS = ['(', ')', '*', '+'];
/** SI, SO, LS2, LS3 shift G0–G3 into use. */
export const SHIFTS = ['\x0f', '\x0e', '\x1bn', '\x1bo'];

/**
 * The set in use restored from the normal screen's slot before the switch (`carriedSetInUseReplay`:
 * ESC 7 with it designated, the designation put back, ESC 8). A terminal with one slot for both
 * screens (`paddock attach`) drops it: its ESC 7 would overwrite the alternate screen's slot,
 * written before it. The set in use stays designated there, which differs from the program's only
 * after the next shift: `paddock attach` gives the agent's own designation before it (`CarriedDesignation`).
 */
// eslint-disable-next-line no-control-regex -- the sequence is made of escapes
export const SET_IN_USE_CARRIED_FROM_NORMAL_SLOT = /\x1b7\x1b[()*+][0B]\x1b8/g;

/**
 * Whether the alternate screen is shown with a set in use apart from the one designated and from
 * its own DECSC slot's, held by the normal screen's slot (the only way there: the set in use was
 * restored on the normal screen, and neither shifted nor restored since). The alternate screen's
 * cells were all written in that set since the switch (which erased it), so none is a character
 * it would turn into another; checked all the same, as a snapshot cannot draw such a cell in it.
 */
export function carriesSetInUse(term: Terminal): boolean {
  const service = charsetInternals(term);
  if (!service || term.buffer.active.type !== 'alternate') return false;
  const inUse = isDecGraphics(service.charset);
  if (inUse === isDecGraphics(service._charsets?.[service.glevel ?? 0])) return false;
  if (isDecGraphics(activeBufferInternals(term)?.savedCharset) === inUse) return false;
  if (isDecGraphics(normalBufferInternals(term)?.savedCharset) !== inUse) return false;
  return !!alternateBufferInternals(term) && drawableIn(term, service.charset);
}

/** Whether every character of the shown screen is written as itself with `charset` in use. */
function drawableIn(term: Terminal, charset: CharsetInternals): boolean {
  if (!charset) return true;
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    for (let x = 0; line && x < term.cols; x++) {
      line.getCell(x, cell);
      for (const ch of cell.getChars()) if (charset[ch] !== undefined) return false;
    }
  }
  return true;
}

/**
 * On the normal screen, from ASCII in G0–G3 and in use: G0–G3 designated as the program has them,
 * its level shifted into use, and the set in use restored (DECRC) from the normal screen's slot,
 * which is saved with it (at the cursor and in the pen already written) and then holds what the
 * program's does. Ends at that cursor, in that pen's colours; the switch that follows saves both.
 */
export function carriedSetInUseReplay(term: Terminal): string {
  const service = charsetInternals(term);
  if (!service) return '';
  const level = service.glevel ?? 0;
  const designated = service._charsets ?? [];
  const designate = (slot: number, graphics: boolean) => `\x1b${DESIGNATORS[slot]}${graphics ? '0' : 'B'}`;
  const designations = DESIGNATORS.map((_, slot) => (isDecGraphics(designated[slot]) ? designate(slot, true) : '')).join('');
  const inUse = isDecGraphics(service.charset);
  const shift = level !== 0 ? SHIFTS[level] : '';
  return `${designations}${shift}${designate(level, inUse)}\x1b7${designate(level, isDecGraphics(designated[level]))}\x1b8`;
}
