/**
 * The agent's resets, made to act on the outer terminal as they act on the agent's (xterm.js,
 * the worker's mirror) without undoing what `paddock attach` set up there. Passed on as they are,
 * RIS (ESC c) takes xterm, VTE and xterm.js off the alternate screen the session runs on (the
 * agent then drew over the person's shell screen, and detaching brought back a garbled one), and
 * resets the outer terminal's own state; DECSTR (CSI ! p) is ignored by tmux (margins, origin
 * mode, pen and modes stayed the agent's old ones) and done otherwise by others (VT510 turns
 * auto-wrap off, xterm.js on).
 */
import { FRESH_SCREEN_MODES } from '../../core/protocol/terminalModes';

export const DECSTR = '\x1b[!p';
const CLEAR = '\x1b[H\x1b[2J';
/** DECSC at home with the default pen and ASCII: the saved cursor of a fresh terminal (ESC 8 goes home). */
const FRESH_SAVED_CURSOR = '\x1b7';

/**
 * RIS in xterm.js: every mode, the pen, the character sets, margins, tab stops and the saved
 * cursor a fresh terminal's, its normal screen shown, cleared, the cursor home. On the outer
 * terminal's alternate screen, which shows whichever screen the agent is on: the modes as
 * `FRESH_SCREEN_MODES` sets them (mouse, bracketed paste, focus, keys, cursor shown), `stops` (a
 * fresh screen's margins and tab stops: `freshScreenStops`), the screen cleared, the saved cursor
 * at home in the default pen and ASCII.
 */
export function agentFullReset(stops: string): string {
  return `${FRESH_SCREEN_MODES}${stops}${CLEAR}${FRESH_SAVED_CURSOR}`;
}

/**
 * DECSTR in xterm.js, what of it does not depend on where the cursor is: the cursor shown,
 * replace mode, auto-wrap on, no reverse wrap, normal cursor keys and keypad, bracketed paste and
 * focus events off, the default pen, ASCII in G0–G3 and G0 in use. Mouse reporting stays (xterm.js
 * keeps it). Its margins, origin mode and saved cursor (set to the whole screen, off, and home,
 * the cursor left where it is) need the cursor's position, which the outer terminal's viewer does
 * not know: it asks the worker for the screen again (`AgentScreenSwitches.filter`'s `softReset`).
 */
export const AGENT_SOFT_RESET_MODES = [
  '\x1b[?25h',
  '\x1b[4l',
  '\x1b[?7h\x1b[?45l',
  '\x1b[?1l\x1b>\x1b[?66l',
  '\x1b[?2004l\x1b[?1004l',
  '\x1b[0m',
  '\x1b(B\x1b)B\x1b*B\x1b+B\x0f',
].join('');
