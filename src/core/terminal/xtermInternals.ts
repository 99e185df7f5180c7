/**
 * xterm.js state the serializer does not restore and the public API does not expose (the
 * serialize addon reads `_core` the same way). Every field is optional: a field that is not
 * there (another xterm.js version) makes the replay of that piece empty, never a crash.
 */
import type { Terminal } from '@xterm/headless';

/** A cell's attributes (xterm.js `AttributeData`): flags are non-zero when set. */
export interface AttributesInternals {
  isBold(): number;
  isDim(): number;
  isItalic(): number;
  isUnderline(): number;
  isBlink(): number;
  isInverse(): number;
  isInvisible(): number;
  isStrikethrough(): number;
  isOverline(): number;
  getFgColorMode(): number;
  getFgColor(): number;
  getBgColorMode(): number;
  getBgColor(): number;
  /** The raw foreground word: its underline bit is the program's SGR 4 (`isUnderline()` is also set by a hyperlink). */
  fg?: number;
  /** Underline style and colour, hyperlink: a cell's are its own only while `hasExtendedAttrs()`. */
  extended?: ExtendedInternals;
  hasExtendedAttrs?(): number;
}

/** xterm.js `ExtendedAttrs`. */
export interface ExtendedInternals {
  /** 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed (what a hyperlinked cell always says). */
  underlineStyle: number;
  /** Colour mode and value, as a foreground's (`58;5;N`, `58;2;R;G;B`); mode 0 is the text's colour. */
  underlineColor: number;
  /** The hyperlink (OSC 8) in the terminal's link service; 0 for none. */
  urlId: number;
  clone?(): ExtendedInternals;
}

/** A hyperlink as OSC 8 gave it. */
export interface LinkInternals {
  id?: string;
  uri: string;
}

/** A character set (G0–G3): a map of the characters it replaces; ASCII is `undefined`. */
export type CharsetInternals = Record<string, string> | undefined | null;

export interface BufferInternals {
  scrollTop?: number;
  scrollBottom?: number;
  x?: number;
  y?: number;
  ybase?: number;
  /** DECSC's slot (ESC 7, CSI s), one per screen: position (row counted with the scrollback), pen and character set. */
  savedX?: number;
  savedY?: number;
  savedCurAttrData?: AttributesInternals;
  savedCharset?: CharsetInternals;
  /** Tab stops: the columns set. */
  tabs?: Record<number, boolean>;
  /** The markers on this screen's lines. */
  markers?: MarkerInternals[];
}

/** A line's marker (xterm.js `Marker`): its line moves with scrolling. */
export interface MarkerInternals {
  line: number;
}

export interface CharsetServiceInternals {
  /** The G-set shifted into GL (SI 0, SO 1, LS2 2, LS3 3). */
  glevel?: number;
  /** The set in use: usually `_charsets[glevel]`, but DECRC puts back the saved one alone. */
  charset?: CharsetInternals;
  _charsets?: CharsetInternals[];
}

interface TerminalInternals {
  _core?: {
    buffer?: BufferInternals;
    buffers?: { normal?: BufferInternals; alt?: BufferInternals };
    _charsetService?: CharsetServiceInternals;
    /** The pen (SGR) the next character is written in. */
    _inputHandler?: {
      _curAttrData?: AttributesInternals;
      /** ED, as `CSI Ps J` runs it (only `params[0]` is read). */
      eraseInDisplay?(params: { params: number[] }, respectProtect?: boolean): boolean;
      /** Erases a row's cells `start` to `end` (a screen row); keeps the row's markers. */
      _eraseInBufferLine?(row: number, start: number, end: number, clearWrap?: boolean, respectProtect?: boolean): void;
      /** Erases a whole row (a screen row) and drops its markers. */
      _resetBufferLine?(row: number, respectProtect?: boolean): void;
      /** Brings the cursor onto the screen (a pending wrap's column to the last one), as every erase does first. */
      _restrictCursor?(maxCol?: number): void;
    };
    _oscLinkService?: {
      getLinkData(id: number): LinkInternals | undefined;
      /** Each link's rows (buffer lines, scrollback counted): where it was opened and where characters were written in it. */
      _dataByLinkId?: Map<number, { lines?: MarkerInternals[] }>;
    };
    /** Parses at once (the public `write` parses later): for a scratch terminal nothing else writes to. */
    writeSync?(data: string): void;
  };
}

function core(term: Terminal): TerminalInternals['_core'] {
  return (term as unknown as TerminalInternals)._core;
}

export function activeBufferInternals(term: Terminal): BufferInternals | undefined {
  return core(term)?.buffer;
}

export function normalBufferInternals(term: Terminal): BufferInternals | undefined {
  return core(term)?.buffers?.normal;
}

export function alternateBufferInternals(term: Terminal): BufferInternals | undefined {
  return core(term)?.buffers?.alt;
}

export function charsetInternals(term: Terminal): CharsetServiceInternals | undefined {
  return core(term)?._charsetService;
}

export function penInternals(term: Terminal): AttributesInternals | undefined {
  return core(term)?._inputHandler?._curAttrData;
}

export function linkInternals(term: Terminal, id: number): LinkInternals | undefined {
  return core(term)?._oscLinkService?.getLinkData(id);
}

/**
 * The lines (scrollback counted) of `screen` (the shown one when not given) that xterm.js keeps the
 * hyperlink `id` for (it forgets the link once each of its lines, on either screen, is erased).
 */
export function linkLinesInternals(term: Terminal, id: number, screen = activeBufferInternals(term)): number[] {
  const markers = core(term)?._oscLinkService?._dataByLinkId?.get(id)?.lines ?? [];
  const shown = screen?.markers ?? [];
  return markers.filter((marker) => shown.includes(marker) && typeof marker.line === 'number' && marker.line >= 0).map((marker) => marker.line);
}

/**
 * Erases above as `CSI 1 J` does, now (from a parser handler), without the read of the line below
 * the cursor's that throws on the last row: the cursor's row up to the cursor, its markers kept (so
 * a hyperlink kept for that row stays, as it does after ED 1 anywhere else), the rows above it
 * whole. `selective`: DECSED (`CSI ? 1 J`), which leaves protected cells as they are. Without those
 * internals, ED 2 (which forgets that row's links); false when this xterm.js has neither.
 */
export function eraseAboveNow(term: Terminal, selective: boolean): boolean {
  const handler = core(term)?._inputHandler;
  if (typeof handler?._eraseInBufferLine !== 'function' || typeof handler._resetBufferLine !== 'function') {
    if (typeof handler?.eraseInDisplay !== 'function') return false;
    handler.eraseInDisplay({ params: [2] }, selective);
    return true;
  }
  handler._restrictCursor?.(term.cols);
  const { cursorY, cursorX } = term.buffer.active;
  handler._eraseInBufferLine(cursorY, 0, cursorX + 1, true, selective);
  for (let row = cursorY - 1; row >= 0; row--) handler._resetBufferLine(row, selective);
  return true;
}

/** Parses `data` into `term` now; false when this xterm.js cannot (then `term` is untouched). */
export function writeNow(term: Terminal, data: string): boolean {
  const c = core(term);
  if (typeof c?.writeSync !== 'function') return false;
  c.writeSync(data);
  return true;
}

/** xterm.js's DEC special graphics map (`q` is the horizontal line). */
export function isDecGraphics(set: CharsetInternals): boolean {
  return !!set && set.q === '\u2500';
}

/** Every hyperlink xterm.js keeps (its numbers), on either screen. */
export function linkIdsInternals(term: Terminal): number[] {
  return [...(core(term)?._oscLinkService?._dataByLinkId?.keys() ?? [])];
}
