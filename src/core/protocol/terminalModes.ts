/**
 * What a viewer writes to the person's terminal when it stops showing an agent
 * (detach, or the agent ended): agents killed mid-screen leave modes on that
 * would break the person's shell (measured: alternate screen, mouse reporting,
 * bracketed paste, focus events, kitty keyboard, alternate scroll all stay on
 * after SIGTERM), and so would the cursor shape it chose (DECSCUSR) and its scroll margins and
 * origin mode (the shell would scroll only inside the agent's status-line region).
 */
export const RESET_TERMINAL_MODES = [
  // Origin mode off (the cursor addressed on the whole screen, not inside the agent's margins) and the scroll
  // margins back to the whole screen. Both home the cursor: done first, where leaving the alternate screen
  // next puts the cursor back (as it does on the normal screen, from the cursor saved last).
  '\x1b[?6l\x1b[r',
  '\x1b[?1049l', // leave the alternate screen
  '\x1b7\x1b[r\x1b8', // the normal screen's own margins, the cursor kept where it is (DECSC/DECRC around DECSTBM)
  '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l', // mouse reporting and encodings
  '\x1b[?2004l', // bracketed paste
  '\x1b[?1004l', // focus events
  '\x1b[<99u\x1b[=0;1u', // pop every kitty keyboard level, and clear flags set without a push
  '\x1b[?1007l', // alternate scroll (wheel as arrow keys on the alternate screen)
  '\x1b[?1l\x1b>\x1b[?66l', // normal cursor keys and keypad (DECKPNM, and DECNKM for terminals that know it)
  '\x1b[4l\x1b[?45l', // replace, not insert; no reverse wrap
  '\x1b[?7h', // auto-wrap back on
  '\x1b[0m', // attributes
  '\x1b[?25h', // show the cursor
  '\x1b[0 q', // the terminal's own cursor shape (an agent's bar or underline would stay)
].join('');
