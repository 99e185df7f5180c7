/**
 * DECSC's slot as a viewer is given it. xterm.js keeps its row counted with the scrollback, so
 * a replay that pushes a row into the viewer's scrollback (`scrollbackLink.ts`) writes it again.
 */
import { isDecGraphics } from './charsetReplay';
import { sgrOf } from './sgr';
import type { BufferInternals } from './xtermInternals';

/** The position of `buffer`'s DECSC slot, on the screen (DECRC puts it back within it). */
export function savedPosition(buffer: BufferInternals, rows: number, cols: number): string {
  if (typeof buffer.savedX !== 'number' || typeof buffer.savedY !== 'number') return '';
  const row = Math.min(rows - 1, Math.max(0, buffer.savedY - (buffer.ybase ?? 0)));
  const col = Math.min(cols - 1, Math.max(0, buffer.savedX));
  return `\x1b[${row + 1};${col + 1}H`;
}

/**
 * DECSC's slot (ESC 7 or CSI s): programs save the cursor, draw a status line elsewhere and
 * restore it (ESC 8); a viewer with an empty slot would restore to the top-left corner. An empty
 * slot is written too: the viewer's may hold a cursor of its own (the VS Code terminal saves one
 * for its reconnect notice, and the mode reset before a screen saves one around DECSTBM). Written
 * where the cursor is free to move (before the screen's cells, or right after the switch to the
 * alternate screen), it ends at home with the default pen, where the serializer starts.
 */
export function savedCursorReplay(buffer: BufferInternals | undefined, rows: number, cols: number): string {
  if (!buffer || typeof buffer.savedX !== 'number' || typeof buffer.savedY !== 'number') return '';
  const pen = buffer.savedCurAttrData ? sgrOf(buffer.savedCurAttrData) : '';
  const graphics = isDecGraphics(buffer.savedCharset);
  return `${savedPosition(buffer, rows, cols)}${pen}${graphics ? '\x1b(0' : ''}\x1b7${pen ? '\x1b[0m' : ''}${graphics ? '\x1b(B' : ''}\x1b[H`;
}

