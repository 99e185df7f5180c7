/**
 * A line of a viewer's own (`paddock attach`'s size notice) on the last row of the agent's screen,
 * drawn without DECSC: its one slot holds the cursor the agent saved (ESC 7, CSI s), and the
 * agent's next ESC 8 would land where the line was drawn from. The screen the viewer wrote is
 * drawn in a scratch terminal of its size, as the viewer's terminal drew it, to know what to give
 * back after the line: the character sets, the cursor with insert and origin modes, and the pen,
 * as a snapshot gives them back after its cells (`writingStateReplay`).
 */
import { Terminal } from '@xterm/headless';
import { END_LINK } from './penReplay';
import { writingStateReplay } from './writingState';
import { writeNow } from './xtermInternals';

/**
 * What writes `text` dimmed on the last row of a `cols`×`rows` terminal that was sent `drawn`
 * and leaves it as `drawn` did; '' when this xterm.js cannot draw the scratch copy at once.
 */
export function lineOverScreen(drawn: string, cols: number, rows: number, text: string): string {
  const term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
  try {
    if (!writeNow(term, drawn)) return '';
    // Replacing, addressed on the whole screen, in the default pen and ASCII in G0 (in use), outside any hyperlink.
    const { insertMode: insert, originMode: origin } = term.modes;
    const line = `${insert ? '\x1b[4l' : ''}${origin ? '\x1b[?6l' : ''}${END_LINK}\x1b[0m\x1b(B\x0f\x1b[${rows};1H\x1b[2m${text}\x1b[0m`;
    return line + writingStateReplay(term);
  } finally {
    term.dispose();
  }
}
