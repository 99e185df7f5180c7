/**
 * The designation `paddock attach` owes the outer terminal after a snapshot whose set in use is
 * apart from the one designated where it is shifted from. The snapshot puts such a set in use back
 * through a second saved cursor (the other screen's slot), which a terminal with one screen and
 * one slot does not have: `withoutScreenSwitches` takes that way out, and the set in use stays
 * designated there. That draws as the agent's terminal does until the agent shifts (SI, SO, LS2,
 * LS3) or restores a cursor, which bring the designation back into use: its own, which the outer
 * terminal was not given. The agent's output is given it right before the first of those (a
 * designation of that G-set by the agent replaces it, and makes it owed no more).
 */
/* eslint-disable no-control-regex -- matching terminal escape sequences is this module's job */
import { SET_IN_USE_CARRIED_FROM_NORMAL_SLOT } from '../../core/terminal/carriedCharset';
import { SET_IN_USE_FROM_ALTERNATE_SLOT } from '../../core/terminal/charsetReplay';

const DESIGNATION = /\x1b[()*+][0B]/;
/**
 * What brings a designation into use: SI, SO, LS2, LS3; DECRC (ESC 8, CSI u, `?1048l`); and a
 * designation (ESC ( ) * +), which replaces the one owed when it is of the same G-set.
 */
const BRINGS_INTO_USE = /\x0e|\x0f|\x1b[no8]|\x1b\[[\d;]*u|\x1b\[\?([\d;]*)l|\x1b([()*+])/g;
const RESTORE_CURSOR_MODE = '1048';

export class CarriedDesignation {
  private owed = '';

  /** The snapshot about to be drawn (before its ways through a second slot are taken out). */
  fromSnapshot(screen: string): void {
    const ways = [...(screen.match(SET_IN_USE_CARRIED_FROM_NORMAL_SLOT) ?? []), ...(screen.match(SET_IN_USE_FROM_ALTERNATE_SLOT) ?? [])];
    this.owed = ways.length > 0 ? (DESIGNATION.exec(ways[ways.length - 1])?.[0] ?? '') : '';
  }

  /** The agent's output (whole escape sequences), with the designation owed right before what brings it into use. */
  apply(text: string): string {
    if (!this.owed) return text;
    BRINGS_INTO_USE.lastIndex = 0;
    for (let match = BRINGS_INTO_USE.exec(text); match; match = BRINGS_INTO_USE.exec(text)) {
      const [whole, modes, designated] = match;
      if (modes !== undefined && !modes.split(';').includes(RESTORE_CURSOR_MODE)) continue;
      const owed = this.owed;
      if (designated !== undefined) {
        // Another G-set's designation leaves this one owed; its own replaces it.
        if (designated !== owed[1]) continue;
        this.owed = '';
        return text;
      }
      this.owed = '';
      return `${text.slice(0, match.index)}${owed}${whole}${text.slice(match.index + whole.length)}`;
    }
    return text;
  }
}
