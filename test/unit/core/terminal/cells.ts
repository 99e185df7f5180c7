/**
 * Every cell of an xterm.js terminal as a viewer can be told it, to compare a viewer that drew a
 * snapshot with the program's own terminal.
 */
import { IBufferCell, Terminal } from '@xterm/headless';
import { ScreenMirror } from '../../../../src/core/worker/mirror';

/** The pen's hyperlink in xterm.js's own view, the rows it keeps each link for, and the shown and normal screens'. */
export interface PenCore {
  _inputHandler: { _curAttrData: { extended: { urlId: number } } };
  _oscLinkService: { _dataByLinkId: Map<number, { lines: object[] }>; getLinkData(id: number): { id?: string } | undefined };
  buffer: { markers: object[] };
  buffers: { normal: { markers: object[] } };
}

/** xterm.js's own view of a cell, beyond the public API: its underline style and colour and its hyperlink. */
export interface CellInternals {
  hasExtendedAttrs(): number;
  getUnderlineStyle(): number;
  getUnderlineColorMode(): number;
  getUnderlineColor(): number;
  extended: { urlId: number };
}

/** What a cell shows: character, colours, every attribute, underline style and colour, hyperlink. */
function cellText(term: Terminal, cell: IBufferCell): string {
  // A blank shows its background; the pen xterm.js leaves on the blank a wide character that did not fit skipped reaches no viewer.
  if (cell.getChars() === '') return ` ${cell.getWidth()}/${cell.getBgColorMode()}:${cell.getBgColor()}|`;
  const internals = cell as unknown as CellInternals;
  const flags = [
    cell.isBold() && 'bold',
    cell.isDim() && 'dim',
    cell.isItalic() && 'italic',
    cell.isBlink() && 'blink',
    cell.isInverse() && 'inverse',
    cell.isInvisible() && 'invisible',
    cell.isStrikethrough() && 'strike',
    cell.isOverline() && 'overline',
  ].filter(Boolean);
  // xterm.js underlines a cell when its flag is set even if its style says none (after ESC 8): a plain underline.
  if (cell.isUnderline()) {
    flags.push(`underline${Math.max(1, internals.getUnderlineStyle())}`, `in${internals.getUnderlineColorMode()}:${internals.getUnderlineColor()}`);
  }
  const urlId = internals.hasExtendedAttrs() ? internals.extended.urlId : 0;
  if (urlId) {
    const links = (term as unknown as { _core: { _oscLinkService: { getLinkData(id: number): unknown } } })._core._oscLinkService;
    flags.push(`link ${JSON.stringify(links.getLinkData(urlId))}`);
  }
  return `${cell.getChars() || ' '}${cell.getFgColorMode()}:${cell.getFgColor()}/${cell.getBgColorMode()}:${cell.getBgColor()}/${flags.join(',')}|`;
}

/** Every cell (character, colours, attributes, underline, hyperlink) and the cursor of an xterm.js terminal sent `chunks`. */
export async function cellsOf(cols: number, rows: number, ...chunks: string[]): Promise<string> {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  try {
    for (const chunk of chunks) await new Promise<void>((resolve) => term.write(chunk, resolve));
    const buffer = term.buffer.active;
    const cell = buffer.getNullCell();
    const out: string[] = [];
    for (let y = 0; y < rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      let text = '';
      for (let x = 0; x < cols; x++) {
        line?.getCell(x, cell);
        text += cellText(term, cell);
      }
      out.push(text);
    }
    out.push(`cursor ${buffer.cursorX},${buffer.cursorY} ${buffer.type}`);
    return out.join('\n');
  } finally {
    term.dispose();
  }
}

/** What xterm.js shows after `before` + `after`, and after the snapshot taken between them + `after`. */
export async function cellsBoth(before: string, after: string, cols = 20, rows = 4): Promise<{ direct: string; viewer: string }> {
  const m = new ScreenMirror({ cols, rows });
  try {
    m.write(before);
    const { screen } = await m.snapshotAt();
    return { direct: await cellsOf(cols, rows, before + after), viewer: await cellsOf(cols, rows, screen, after) };
  } finally {
    m.dispose();
  }
}
