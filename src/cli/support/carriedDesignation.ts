/**
 * The designation `paddock attach` owes the outer terminal after a snapshot whose set in use is
 * apart from the one designated where it is shifted from. The snapshot puts such a set in use back
 * through a second saved cursor (the other screen's slot), which a terminal with one screen and
 * one slot does not have: `withoutScreenSwitches` takes that way out, and the set in use stays
 * designated there. That draws as the agent's terminal does until the agent shifts (SI, SO, LS2,
 * LS3), which brings the designation back into use: its own, which the outer terminal was not
 * given. The agent's output is given it right before the first shift (a designation of that G-set
 * by the agent replaces it, and RIS and DECSTR put ASCII back in every G-set: either makes it owed
 * no more). A cursor restore puts a saved set in use, not a designation (in xterm.js; a terminal
 * that restores designations too would overwrite the owed one), so it leaves it owed.
 */
/* eslint-disable no-control-regex -- matching terminal escape sequences is this module's job */
import { SET_IN_USE_CARRIED_FROM_NORMAL_SLOT } from '../../core/terminal/carriedCharset';
import { SET_IN_USE_FROM_ALTERNATE_SLOT } from '../../core/terminal/charsetReplay';

const DESIGNATION = /\x1b[()*+][0B]/;
/**
 * What brings a designation into use: SI, SO, LS2, LS3; what replaces the one owed: a designation
 * (ESC ( ) * +) of the same G-set, RIS (ESC c) and DECSTR (CSI ! p; the 8-bit CSI U+009B too, as
 * xterm.js reads it: bug 222).
 */
const BRINGS_INTO_USE = /\x0e|\x0f|\x1b[no]|\x1b([()*+])|(\x1bc|(?:\x1b\[|\x9b)!p)/g;

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
      const [whole, designated, reset] = match;
      const owed = this.owed;
      if (reset !== undefined) {
        this.owed = '';
        return text;
      }
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
