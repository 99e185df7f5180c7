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

export function charsetInternals(term: Terminal): CharsetServiceInternals | undefined {
  return core(term)?._charsetService;
}
