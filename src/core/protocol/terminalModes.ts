/**
 * What a viewer writes to the person's terminal when it stops showing an agent
 * (detach, or the agent ended): agents killed mid-screen leave modes on that
 * would break the person's shell (measured: alternate screen, mouse reporting,
 * bracketed paste, focus events, kitty keyboard, alternate scroll all stay on
 * after SIGTERM), and so would the cursor shape it chose (DECSCUSR), its scroll margins and
 * origin mode (the shell would scroll only inside the agent's status-line region), and
 * DEC line drawing in any G-set (the shell's letters drawn as box pieces).
 */

/**
 * Every mode an agent may have turned on, back to a fresh terminal's, without moving the cursor
 * or switching screens.
 */
const AGENT_MODES_OFF = [
  '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l', // mouse reporting and encodings
  '\x1b[?2004l', // bracketed paste
  '\x1b[?1004l', // focus events
  '\x1b[<99u\x1b[=0;1u', // pop every kitty keyboard level, and clear flags set without a push
  '\x1b[?1007l', // alternate scroll (wheel as arrow keys on the alternate screen)
  '\x1b[?1l\x1b>\x1b[?66l', // normal cursor keys and keypad (DECKPNM, and DECNKM for terminals that know it)
  '\x1b[4l\x1b[?45l', // replace, not insert; no reverse wrap
  '\x1b[?7h', // auto-wrap back on
  '\x1b[0m', // attributes
  // ASCII in G0–G3, and G0 in use (after `ESC ( 0`, or SO with DEC line drawing in G1): what a
  // snapshot is drawn from (a G-set designated by the one before stays in the outer terminal).
  '\x1b(B\x1b)B\x1b*B\x1b+B\x0f',
  '\x1b[?25h', // show the cursor
  '\x1b[0 q', // the terminal's own cursor shape (an agent's bar or underline would stay)
].join('');

/**
 * Origin mode off (the cursor addressed on the whole screen, not inside the agent's margins) and the
 * scroll margins back to the whole screen. Both home the cursor.
 */
const WHOLE_SCREEN_MARGINS = '\x1b[?6l\x1b[r';

export const RESET_TERMINAL_MODES = [
  // Done first, where leaving the alternate screen next puts the cursor back (as it does on the normal
  // screen, from the cursor saved last).
  WHOLE_SCREEN_MARGINS,
  '\x1b[?1049l', // leave the alternate screen
  '\x1b7\x1b[r\x1b8', // the normal screen's own margins, the cursor kept where it is (DECSC/DECRC around DECSTBM)
  AGENT_MODES_OFF,
].join('');

/**
 * Written before a fresh screen from the worker (`ready`) by a viewer that stays on the screen it
 * shows (`paddock attach` keeps the outer terminal's alternate screen for the whole session): the
 * screen is drawn for a terminal in a fresh terminal's state, and the output before it may have
 * left a pen with a background (the clear would paint the screen with it), origin mode inside
 * margins (the screen would be drawn from the top margin down), DEC line drawing, or a mode the
 * agent turned off in output the viewer skipped (a lagging viewer's resync). Homes the cursor.
 */
export const FRESH_SCREEN_MODES = WHOLE_SCREEN_MARGINS + AGENT_MODES_OFF;
