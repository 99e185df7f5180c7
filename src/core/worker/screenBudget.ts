/**
 * A `ready` must fit the line a client takes (MAX_SERVER_LINE_BYTES): the largest screen (1000×500) with a pen of its
 * own in every cell serializes to ~22 MB of JSON (each ESC escaped to six bytes), and the client closed the
 * connection at it, so the window's terminal reconnected for ever and `paddock attach` and `paddock screen` failed
 * (bug 205). Such a screen goes as its text only (characters, modes, and the cursor, margins and pen the agent's next
 * output is written with): less than exact, rather than nothing.
 */
import type { Terminal } from '@xterm/headless';
import { MAX_SERVER_LINE_BYTES } from '../protocol/messages';
import { writingStateReplay } from '../terminal/writingState';

/** The frame's other fields take well under this. */
const BUDGET = MAX_SERVER_LINE_BYTES - 64 * 1024;
/** A UTF-16 unit escapes to at most six bytes of JSON (`\u001b`). */
const MAX_ESCAPED = 6;

export function fitsFrame(screen: string): boolean {
  if (screen.length * MAX_ESCAPED <= BUDGET) return true;
  return Buffer.byteLength(JSON.stringify(screen)) <= BUDGET;
}

/**
 * The visible screen as text, each row placed, on the screen the agent is on; then the modes and the writing state
 * (cursor, margins, pen, character sets) as a full snapshot gives them. Without them a viewer of the text lost
 * bracketed paste, application cursor keys, mouse and focus reporting, and wrote the agent's next output outside its
 * scroll region and in the default pen.
 */
export function plainScreen(term: Terminal): string {
  const buf = term.buffer.active;
  let out = buf.type === 'alternate' ? '\x1b[?1049h' : '';
  out += '\x1b[0m\x1b[H\x1b[2J';
  for (let y = 0; y < term.rows; y++) {
    const text = buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '';
    if (text !== '') out += `\x1b[${y + 1};1H${text}`;
  }
  return `${out}\x1b[${buf.cursorY + 1};${buf.cursorX + 1}H${modesReplay(term)}${writingStateReplay(term)}`;
}

/** What the serializer's own screen ends with (its `_serializeModes`, private): the modes xterm.js reports. */
function modesReplay(term: Terminal): string {
  const m = term.modes;
  const mouse = { none: '', x10: '\x1b[?9h', vt200: '\x1b[?1000h', drag: '\x1b[?1002h', any: '\x1b[?1003h' }[m.mouseTrackingMode];
  return (
    (m.applicationCursorKeysMode ? '\x1b[?1h' : '') +
    (m.applicationKeypadMode ? '\x1b[?66h' : '') +
    (m.bracketedPasteMode ? '\x1b[?2004h' : '') +
    (m.insertMode ? '\x1b[4h' : '') +
    (m.originMode ? '\x1b[?6h' : '') +
    (m.reverseWraparoundMode ? '\x1b[?45h' : '') +
    (m.sendFocusMode ? '\x1b[?1004h' : '') +
    (m.wraparoundMode ? '' : '\x1b[?7l') +
    mouse
  );
}
