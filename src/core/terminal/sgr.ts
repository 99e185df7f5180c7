/**
 * The SGR sequence that sets a pen (xterm.js attributes) in a terminal whose pen is the default:
 * the serializer says the pen of each cell, but not the pen saved by DECSC, which a later
 * ESC 8 (restore cursor) brings back, nor an underline's style and colour.
 */
import type { AttributesInternals, ExtendedInternals } from './xtermInternals';

/** xterm.js colour modes (`Attributes.CM_*`). */
const PALETTE_16 = 0x1000000;
const PALETTE_256 = 0x2000000;
const RGB = 0x3000000;
const COLOUR_MODE = 0x3000000;
/** xterm.js's SGR 59 (underline in the text's colour) stores every bit of the colour set: mode RGB, white. */
const UNDERLINE_COLOUR_RESET = 0x3ffffff;
/** `FgFlags.UNDERLINE`: the program's SGR 4. */
const UNDERLINE_FLAG = 0x10000000;
const SINGLE = 1;
const DASHED = 5;

/**
 * `extended`: the underline's style and colour to say too (a cell's while it has them, or the pen's);
 * without it, an underline is a plain one (DECSC saves no more than that in xterm.js).
 */
export function sgrOf(attrs: AttributesInternals, extended?: ExtendedInternals): string {
  const params: string[] = [];
  if (attrs.isBold()) params.push('1');
  if (attrs.isDim()) params.push('2');
  if (attrs.isItalic()) params.push('3');
  const underline = extended ? underlineOf(attrs, extended) : attrs.isUnderline() ? '4' : undefined;
  if (underline) params.push(underline);
  if (attrs.isBlink()) params.push('5');
  if (attrs.isInverse()) params.push('7');
  if (attrs.isInvisible()) params.push('8');
  if (attrs.isStrikethrough()) params.push('9');
  if (attrs.isOverline()) params.push('53');
  params.push(...colour(attrs.getFgColorMode(), attrs.getFgColor(), 30));
  params.push(...colour(attrs.getBgColorMode(), attrs.getBgColor(), 40));
  if (extended) params.push(...underlineColour(extended.underlineColor));
  return params.length > 0 ? `\x1b[${params.join(';')}m` : '';
}

/** The SGR sequence for a background colour alone (xterm.js colour mode and value). */
export function backgroundSgr(mode: number, value: number): string {
  return `\x1b[${colour(mode, value, 40).join(';') || '49'}m`;
}

/**
 * SGR 4 with the style as a sub-parameter (`4:3` curly; SGR 21 is `4:2`). xterm.js says every
 * hyperlinked cell is underlined, dashed, whatever the program asked: its own flag tells whether
 * the program underlined it, and the style it chose is read without the link.
 */
function underlineOf(attrs: AttributesInternals, extended: ExtendedInternals): string | undefined {
  const underlined = typeof attrs.fg === 'number' ? (attrs.fg & UNDERLINE_FLAG) !== 0 : attrs.isUnderline() !== 0;
  if (!underlined) return undefined;
  const style = styleOf(extended);
  return style > SINGLE && style <= DASHED ? `4:${style}` : '4';
}

function styleOf(extended: ExtendedInternals): number {
  if (!extended.urlId) return extended.underlineStyle;
  if (!extended.clone) return SINGLE;
  const unlinked = extended.clone();
  unlinked.urlId = 0;
  return unlinked.underlineStyle;
}

/** SGR 58 with colons, the form terminals with coloured underlines read (xterm.js, kitty, VTE, tmux). */
function underlineColour(value: number): string[] {
  if (value === UNDERLINE_COLOUR_RESET) return ['59'];
  const mode = value & COLOUR_MODE;
  if (mode === PALETTE_16 || mode === PALETTE_256) return [`58:5:${value & 0xff}`];
  if (mode === RGB) return [`58:2::${(value >> 16) & 0xff}:${(value >> 8) & 0xff}:${value & 0xff}`];
  return [];
}

/** `base` is 30 for the foreground, 40 for the background. */
function colour(mode: number, value: number, base: number): string[] {
  if (mode === PALETTE_16) return [String(value < 8 ? base + value : base + 60 + value - 8)];
  if (mode === PALETTE_256) return [`${base + 8};5;${value}`];
  if (mode === RGB) return [`${base + 8};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`];
  return [];
}
