/**
 * xterm.js 6 throws on ED 1 (erase above, `CSI 1 J`) with the cursor in the last column of the
 * last row of a normal screen that has not scrolled yet: it clears the wrap flag of the line below
 * the cursor's, counted from the top of the scrollback, and no such line exists yet. The throw is
 * inside its parser, and the write's callback never comes: the mirror waits for it forever, and
 * every snapshot with it (each attach after that hangs). There the erase is done without that read
 * (`eraseAboveNow`). Not as ED 2, though the cells erased are the same: ED 2 drops the cursor's
 * row's markers, and with them a hyperlink kept only for that row, which the program goes on
 * writing in. The same for its selective form (DECSED, `CSI ? 1 J`), which goes to the same code.
 */
import type { IDisposable, Terminal } from '@xterm/headless';
import { eraseAboveNow } from './xtermInternals';

const ERASE_ABOVE = 1;

export function guardEraseAbove(term: Terminal): IDisposable {
  const guard = (selective: boolean) => (params: (number | number[])[]) => {
    if (params[0] !== ERASE_ABOVE) return false;
    const buffer = term.buffer.active;
    if (buffer.cursorY + 1 < buffer.length || buffer.cursorX + 1 < term.cols) return false;
    return eraseAboveNow(term, selective);
  };
  const plain = term.parser.registerCsiHandler({ final: 'J' }, guard(false));
  const selective = term.parser.registerCsiHandler({ prefix: '?', final: 'J' }, guard(true));
  return { dispose: () => (plain.dispose(), selective.dispose()) };
}
