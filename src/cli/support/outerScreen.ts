/**
 * `paddock attach` keeps the person's terminal on its alternate screen for the
 * whole session (as tmux does), so detaching brings the shell's screen back
 * untouched. The agent's own switches between its main and alternate screens
 * must then not reach the outer terminal: leaving would show the shell's
 * screen under the agent's drawing. Entering from the agent's normal screen becomes a clear,
 * with a fresh screen's margins and tab stops (what the agent expects of a fresh alternate
 * screen, `freshScreenStops`); entering again while on it changes nothing there but the
 * cursor `?1049h` saves; leaving is dropped and reported, and the viewer asks the worker for
 * the agent's main screen again. The agent's resets are not the outer terminal's either: RIS would
 * take it off the alternate screen (xterm, VTE, xterm.js) and DECSTR is ignored by some (tmux) and
 * done otherwise by others (`agentResets.ts`).
 */
/* eslint-disable no-control-regex -- matching terminal escape sequences is this module's job */
import { SET_IN_USE_CARRIED_FROM_NORMAL_SLOT } from '../../core/terminal/carriedCharset';
import { DROPPED_OVER_WIDE_SECOND_HALF } from '../../core/terminal/cellDraw';
import { SET_IN_USE_FROM_ALTERNATE_SLOT } from '../../core/terminal/charsetReplay';
import { ROWS_ADDED_TO_LINK } from '../../core/terminal/penReplay';
import { AROUND_LINK, SAVES_WITH_PEN_MARK } from '../../core/terminal/savedCursor';
import { heldBack, PRIVATE_MODE_OR_RESET, SCREEN_MODES, switchesScreen } from '../../core/terminal/screenSwitch';
import { withoutScrollbackLink } from '../../core/terminal/scrollbackLink';
import { AGENT_SOFT_RESET_MODES, agentFullReset, DECSTR } from './agentResets';
import { CarriedDesignation } from './carriedDesignation';

/** Auto-wrap, which the outer terminal keeps off while the agent is wider (`cropped`). */
const AUTO_WRAP_MODE = 7;
/**
 * Window operations (XTWINOPS, `CSI Ps ; … t`) that change the outer terminal's window or title
 * stack: xterm.js, the agent's terminal, ignores them all (its `windowOptions` are off), and tmux
 * keeps them from the outer terminal. An agent's pop of the title stack (vim's on exit, pushed
 * before the attach) took the title `paddock attach` saved there, so detaching left the agent's;
 * a push left the agent's title to come back. Reports (11, 13–21) are left to the outer terminal.
 */
const WINDOW_CHANGE = /(?:\x1b\[|\x9b)(\d*)(?:;[\d;]*)?t/g; // CSI in either form, as xterm.js reads it (`screenSwitch.ts`)
const WINDOW_REPORTS = new Set([11, 13, 14, 15, 16, 18, 19, 20, 21]);
const SAVE_CURSOR_MODE = 1049;
/** DECSTR with the 8-bit CSI, which xterm.js reads as DECSTR. */
const DECSTR_8BIT = '\x9b!p';
const SAVE_CURSOR = '\x1b7';
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
  private alternate = false;
  private readonly designation = new CarriedDesignation();
  /**
   * Whether the outer terminal is narrower than the agent's: `paddock attach` turns its auto-wrap
   * off (rows cropped, as tmux shows a window larger than its client), and the agent's own `?7h`,
   * RIS or DECSTR must not turn it back on (its long rows would wrap onto the rows below).
   */
  cropped = false;

  /** `cols`: the agent's terminal's, for the tab stops of a screen it enters (`freshScreenStops`). */
  constructor(private cols = 0) {}

  /**
   * A fresh screen from the worker (`cols` wide), made to draw on the outer screen
   * (`withoutScreenSwitches`) from a fresh terminal's stops; what was half-received is dropped.
   * Set `cropped` first: the screen's own `?7h` must not turn auto-wrap back on either.
   */
  snapshot(screen: string, cols: number): string {
    this.reset();
    this.cols = cols;
    this.designation.fromSnapshot(screen);
    const drawn = forOneScreen(screen, cols, this.cropped);
    this.alternate = drawn.alternate;
    return freshScreenStops(cols) + drawn.text;
  }

  /**
   * Text to write to the outer terminal; whether the agent left its alternate screen in it; and
   * whether it soft-reset its terminal (DECSTR), which puts back margins and the saved cursor
   * where the cursor is, which only the worker's screen knows: both ask for the screen again.
   */
  filter(data: string): { text: string; leftAlternate: boolean; softReset: boolean } {
    const { complete: input, carry } = heldBack(this.carry + data);
    this.carry = carry;
    let leftAlternate = false;
    let softReset = false;
    const wrapOff = () => (this.cropped ? `\x1b[?${AUTO_WRAP_MODE}l` : '');
    const text = this.designation.apply(input).replace(PRIVATE_MODE_OR_RESET, (whole, params: string | undefined, action: string) => {
      if (whole === DECSTR || whole === DECSTR_8BIT) {
        softReset = true;
        return AGENT_SOFT_RESET_MODES + wrapOff();
      }
      if (params === undefined) {
        // RIS: the agent's terminal is a fresh one on its normal screen; the outer stays on its alternate one.
        this.alternate = false;
        return agentFullReset(freshScreenStops(this.cols)) + wrapOff();
      }
      const modes = params.split(';');
      const kept = modes.filter((m) => !SCREEN_MODES.has(Number(m)) && !(this.cropped && action === 'h' && Number(m) === AUTO_WRAP_MODE));
      if (kept.length === modes.length) return whole;
      const rest = kept.length > 0 ? `\x1b[?${kept.join(';')}${action}` : '';
      if (!switchesScreen(params)) return rest;
      if (action === 'l') {
        this.alternate = false;
        leftAlternate = true;
        return rest;
      }
      // xterm.js ignores a switch to the screen it shows, keeping that screen's margins and stops;
      // `?1049h` still saves the cursor, in the alternate screen's slot then (the outer's one slot).
      if (this.alternate) return (modes.map(Number).includes(SAVE_CURSOR_MODE) ? SAVE_CURSOR : '') + rest;
      this.alternate = true;
      return freshScreenStops(this.cols) + CLEAR + rest;
    });
    return { text: text.replace(WINDOW_CHANGE, (whole, ps: string) => (WINDOW_REPORTS.has(Number(ps)) ? whole : '')), leftAlternate, softReset };
  }

  /** Whether the agent's terminal shows its alternate screen (as of the output filtered last). */
  get showsAlternate(): boolean {
    return this.alternate;
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
  return forOneScreen(screen, cols).text;
}

/** `withoutScreenSwitches` (auto-wrap left off if `cropped`), and whether the screen drawn is the agent's alternate one. */
function forOneScreen(screen: string, cols: number, cropped = false): { text: string; alternate: boolean } {
  // A scrollback line for the pen's link: the outer alternate screen has none, and it may be shorter
  // than the agent's, whose rows the replay's margins are for (its last row was scrolled away).
  const portable = withoutScrollbackLink(screen)
    // Not switches of the agent's: the snapshot's ways to a set in use that no designation gives,
    // through a saved cursor this terminal's one slot does not hold apart (the carried one would
    // overwrite the alternate screen's, which the agent may restore). The set in use stays
    // designated; the agent's own designation comes before its next shift (`CarriedDesignation`).
    .replace(SET_IN_USE_FROM_ALTERNATE_SLOT, '')
    .replace(SET_IN_USE_CARRIED_FROM_NORMAL_SLOT, '')
    // Wide characters only xterm.js drops (VTE and kitty draw them at the second-to-last column).
    .replace(ROWS_ADDED_TO_LINK, '')
    // The save and restore around the carried link (this terminal's one slot holds the alternate
    // screen's, written before), and the link only xterm.js's saves need (a terminal that saves the
    // pen's link itself would open about:blank for the agent's text after a restore).
    .replace(AROUND_LINK, '')
    .replace(SAVES_WITH_PEN_MARK, '$1')
    .replace(DROPPED_OVER_WIDE_SECOND_HALF, '');
  const switches = new AgentScreenSwitches(cols);
  switches.cropped = cropped;
  return { text: switches.filter(portable).text, alternate: switches.showsAlternate };
}
