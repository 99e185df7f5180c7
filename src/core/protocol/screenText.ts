/**
 * Turns a serialized screen (a `ready` frame) into plain text lines by
 * replaying it into a headless terminal of the same size, the way a viewer's
 * terminal would show it. It loads the terminal emulator (~180 KB): the CLI
 * builds it as a bundle of its own, loaded only when a live screen is replayed
 * (and with it what else needs the emulator: `lineOverScreen`).
 */
import { Terminal } from '@xterm/headless';

export { lineOverScreen } from '../terminal/lineOverScreen';

export async function screenLines(screen: string, cols: number, rows: number): Promise<string[]> {
  const term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => term.write(screen, resolve));
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < rows; y++) lines.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    return lines;
  } finally {
    term.dispose();
  }
}
