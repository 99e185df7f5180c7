/**
 * `paddock attach` keeps the person's terminal on its alternate screen for the
 * whole session (as tmux does), so detaching brings the shell's screen back
 * untouched. The agent's own switches between its main and alternate screens
 * must then not reach the outer terminal: leaving would show the shell's
 * screen under the agent's drawing. Entering becomes a clear, with a fresh
 * screen's margins and tab stops (what the agent expects of a fresh alternate
 * screen, `freshScreenStops`); leaving is dropped and reported, and
 * the viewer asks the worker for the agent's main screen again.
 */
/* eslint-disable no-control-regex -- matching terminal escape sequences is this module's job */
import { SET_IN_USE_CARRIED_FROM_NORMAL_SLOT } from '../../core/terminal/carriedCharset';
import { DROPPED_OVER_WIDE_SECOND_HALF } from '../../core/terminal/cellDraw';
import { SET_IN_USE_FROM_ALTERNATE_SLOT } from '../../core/terminal/charsetReplay';
import { ROWS_ADDED_TO_LINK } from '../../core/terminal/penReplay';
import { CarriedDesignation } from './carriedDesignation';

/** DEC private modes that switch screens: 1049 (with cursor save), 1047, 47. */
const SCREEN_MODES = new Set([47, 1047, 1049]);
const PRIVATE_MODE = /\x1b\[\?([\d;]*)([hl])/g;
/** An escape sequence that may still become a private mode set/reset when the next chunk comes. */
const UNFINISHED = /\x1b(?:\[(?:\?[\d;]*)?)?$/;
const CLEAR = '\x1b[H\x1b[2J';
const WHOLE_SCREEN_MARGINS = '\x1b[r';
const TAB_WIDTH = 8;

/**
 * The scroll margins and tab stops xterm.js gives the agent's screen it enters: it keeps both for
 * each screen, and the alternate screen's are a fresh terminal's (leaving it clears them), where
 * the outer terminal, one screen for both, kept the main screen's (a status line's margins, a
 * program's own stops). A stop every 8 columns of `cols` (none known: the stops are left). Homes the cursor.
 */
export function freshScreenStops(cols: number): string {
  if (cols <= 0) return WHOLE_SCREEN_MARGINS;
  let stops = '\x1b[3g';
  for (let x = TAB_WIDTH; x < cols; x += TAB_WIDTH) stops += `\x1b[1;${x + 1}H\x1bH`;
  return `${WHOLE_SCREEN_MARGINS}${stops}\x1b[H`;
}

export class AgentScreenSwitches {
  private carry = '';
  private readonly designation = new CarriedDesignation();

  /** `cols`: the agent's terminal's, for the tab stops of a screen it enters (`freshScreenStops`). */
  constructor(private cols = 0) {}

  /**
   * A fresh screen from the worker (`cols` wide), made to draw on the outer screen
   * (`withoutScreenSwitches`) from a fresh terminal's stops; what was half-received is dropped.
   */
  snapshot(screen: string, cols: number): string {
    this.reset();
    this.cols = cols;
    this.designation.fromSnapshot(screen);
    return freshScreenStops(cols) + withoutScreenSwitches(screen, cols);
  }

  /** Text to write to the outer terminal, and whether the agent left its alternate screen in it. */
  filter(data: string): { text: string; leftAlternate: boolean } {
    let input = this.carry + data;
    this.carry = '';
    const unfinished = UNFINISHED.exec(input);
    if (unfinished) {
      this.carry = unfinished[0];
      input = input.slice(0, unfinished.index);
    }
    let leftAlternate = false;
    const text = this.designation.apply(input).replace(PRIVATE_MODE, (whole, params: string, action: string) => {
      const modes = params.split(';');
      const kept = modes.filter((m) => !SCREEN_MODES.has(Number(m)));
      if (kept.length === modes.length) return whole;
      const rest = kept.length > 0 ? `\x1b[?${kept.join(';')}${action}` : '';
      if (action === 'h') return freshScreenStops(this.cols) + CLEAR + rest;
      leftAlternate = true;
      return rest;
    });
    return { text, leftAlternate };
  }

  /** A fresh screen from the worker replaces whatever was half-received. */
  reset(): void {
    this.carry = '';
  }
}

/**
 * The snapshot of a screen, made to draw inside the outer alternate screen, in whatever terminal
 * the person uses: what only a terminal with two screens and two saved cursors, or only xterm.js,
 * draws as the agent's terminal does is taken out.
 */
export function withoutScreenSwitches(screen: string, cols = 0): string {
  const portable = screen
    // Not switches of the agent's: the snapshot's ways to a set in use that no designation gives,
    // through a saved cursor this terminal's one slot does not hold apart (the carried one would
    // overwrite the alternate screen's, which the agent may restore). The set in use stays
    // designated; the agent's own designation comes before its next shift (`CarriedDesignation`).
    .replace(SET_IN_USE_FROM_ALTERNATE_SLOT, '')
    .replace(SET_IN_USE_CARRIED_FROM_NORMAL_SLOT, '')
    // Wide characters only xterm.js drops (VTE and kitty draw them at the second-to-last column).
    .replace(ROWS_ADDED_TO_LINK, '')
    .replace(DROPPED_OVER_WIDE_SECOND_HALF, '');
  return new AgentScreenSwitches(cols).filter(portable).text;
}
