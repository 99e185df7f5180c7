/**
 * A line of a viewer's own (`paddock attach`'s size notice) on the last row of the agent's screen,
 * drawn without DECSC/DECRC: their one slot holds the cursor the agent saved (ESC 7, CSI s), and
 * the agent's next ESC 8 would land where the line was drawn from. The screen the viewer wrote is
 * drawn in a scratch terminal of its size, as the viewer's terminal drew it, to know what to give
 * back after the line: the cursor, the pen, the character sets and insert and origin modes.
 */
import { Terminal } from '@xterm/headless';
import { cursorBack } from '../worker/cellRedraw';
import { END_LINK, penReplay } from '../worker/penReplay';
import { charsetReplay } from '../worker/screenReplay';
import { activeBufferInternals, writeNow } from '../worker/xtermInternals';

/**
 * What writes `text` dimmed on the last row of a `cols`×`rows` terminal that was sent `drawn`
 * and leaves it as `drawn` did; '' when this xterm.js cannot draw the scratch copy at once.
 */
export function lineOverScreen(drawn: string, cols: number, rows: number, text: string): string {
  const term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
  try {
    if (!writeNow(term, drawn)) return '';
    const insert = term.modes.insertMode;
    const origin = term.modes.originMode;
    // Replacing, addressed on the whole screen, in the default pen and ASCII, outside any hyperlink.
    const line = `${insert ? '\x1b[4l' : ''}${origin ? '\x1b[?6l' : ''}${END_LINK}\x1b[0m\x1b(B\x0f\x1b[${rows};1H\x1b[2m${text}\x1b[0m`;
    return `${line}${cursorOf(term)}${penReplay(term)}${charsetReplay(term)}${insert ? '\x1b[4h' : ''}`;
  } finally {
    term.dispose();
  }
}

/** The cursor back where `drawn` left it; with origin mode, which homes it when set, counted from the top margin. */
function cursorOf(term: Terminal): string {
  const buffer = activeBufferInternals(term);
  if (!term.modes.originMode) return cursorBack(term, term.buffer.active, buffer);
  const top = buffer?.scrollTop ?? 0;
  const cursor = term.buffer.active;
  return `\x1b[?6h\x1b[${cursor.cursorY - top + 1};${cursor.cursorX + 1}H`;
}
