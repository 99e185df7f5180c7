/**
 * Whether what a terminal was written leaves it on the alternate screen. A full-screen agent's
 * (vim, a TUI) screen is there; the normal "connection lost" notice leaves it with the agent's other
 * modes, and the alternate screen has no scrollback, so its last screen was gone while the terminal
 * reconnected (bug 172). Knowing, the notice can stay on it.
 */
import { paddockLine } from './endNotice';
import { FRESH_SCREEN_MODES } from '../../core/protocol/terminalModes';
import { heldBack, mayHoldSequence, PRIVATE_MODE_OR_RESET, switchesScreen } from '../../core/terminal/screenSwitch';

export class AlternateScreenWatch {
  /** An unfinished sequence at the end of the last write, read with the next (`heldBack`). */
  private carry = '';
  private alternate = false;

  get on(): boolean {
    return this.alternate;
  }

  note(text: string): void {
    // Every write of the agent's output comes here: plain text (no ESC or 8-bit CSI, nothing held back) switches nothing.
    if (this.carry === '' && !mayHoldSequence(text)) return;
    const { complete, carry } = heldBack(this.carry + text);
    this.carry = carry;
    // `matchAll` reads with a copy of the shared expression: its position is its own.
    for (const [whole, modes, action] of complete.matchAll(PRIVATE_MODE_OR_RESET)) {
      if (whole === '\x1bc') this.alternate = false;
      else if (modes !== undefined && switchesScreen(modes)) this.alternate = action === 'h';
    }
  }
}

/**
 * A notice written on the alternate screen, which it does not leave: the agent's modes off (mouse
 * reporting would keep the text from being selected), then the words on the last row, the screen
 * scrolled up by one row for them. Cut to the row (`cols` wide): a longer one wrapped, moving the
 * kept screen up a row more for each row it took.
 */
export function alternateScreenNotice(rows: number, cols: number, words: string): string {
  return `${FRESH_SCREEN_MODES}\x1b[${Math.max(1, rows)};1H${paddockLine(cutToRow(words, cols)).replace(/\r\n$/, '')}`;
}

/**
 * The words that fit on a row `cols` wide after "[paddock] ", an ellipsis for the rest. A character
 * from U+1100 on is counted two columns (wide or not): cut early rather than wrap.
 */
function cutToRow(words: string, cols: number): string {
  const room = Math.max(1, cols - '[paddock] '.length);
  const width = (c: string) => ((c.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1);
  let used = 0;
  const chars = Array.from(words);
  if (chars.reduce((n, c) => n + width(c), 0) <= room) return words;
  let kept = '';
  for (const c of chars) {
    if (used + width(c) > room - 1) break;
    used += width(c);
    kept += c;
  }
  return `${kept}…`;
}
