/**
 * Whether what a terminal was written leaves it on the alternate screen. A full-screen agent's
 * (vim, a TUI) screen is there; the normal "connection lost" notice leaves it with the agent's other
 * modes, and the alternate screen has no scrollback, so its last screen was gone while the terminal
 * reconnected (bug 172). Knowing, the notice can stay on it.
 */
import { paddockLine } from './endNotice';
import { FRESH_SCREEN_MODES } from '../../core/protocol/terminalModes';

/** Set/reset of the alternate screen (1049, 1047, 47), or RIS, which leaves it. */
// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is this module's job
const SWITCH = /\x1b\[\?(?:1049|1047|47)([hl])|\x1bc/g;
/** Long enough to hold a switch cut between two writes. */
const TAIL = 8;

export class AlternateScreenWatch {
  private tail = '';
  private alternate = false;

  get on(): boolean {
    return this.alternate;
  }

  note(text: string): void {
    const seen = this.tail + text;
    SWITCH.lastIndex = 0;
    let lastEnd = 0;
    for (let m = SWITCH.exec(seen); m; m = SWITCH.exec(seen)) {
      // A switch lying wholly in the tail was counted with the write before.
      if (m.index + m[0].length > this.tail.length) this.alternate = m[1] === 'h';
      lastEnd = m.index + m[0].length;
    }
    this.tail = seen.slice(Math.max(lastEnd, seen.length - TAIL));
  }
}

/**
 * A notice written on the alternate screen, which it does not leave: the agent's modes off (mouse
 * reporting would keep the text from being selected), then the words on the last row, the screen
 * scrolled up by one row for them, not two.
 */
export function alternateScreenNotice(rows: number, words: string): string {
  return `${FRESH_SCREEN_MODES}\x1b[${Math.max(1, rows)};1H${paddockLine(words).replace(/\r\n$/, '')}`;
}
