/**
 * The SGR sequence that sets a pen (xterm.js attributes) in a terminal whose pen is the default:
 * the serializer says the pen of each cell, but not the pen saved by DECSC, which a later
 * ESC 8 (restore cursor) brings back.
 */
import type { AttributesInternals } from './xtermInternals';

/** xterm.js colour modes (`Attributes.CM_*`). */
const PALETTE_16 = 0x1000000;
const PALETTE_256 = 0x2000000;
const RGB = 0x3000000;

export function sgrOf(attrs: AttributesInternals): string {
  const params: string[] = [];
  if (attrs.isBold()) params.push('1');
  if (attrs.isDim()) params.push('2');
  if (attrs.isItalic()) params.push('3');
  if (attrs.isUnderline()) params.push('4');
  if (attrs.isBlink()) params.push('5');
  if (attrs.isInverse()) params.push('7');
  if (attrs.isInvisible()) params.push('8');
  if (attrs.isStrikethrough()) params.push('9');
  if (attrs.isOverline()) params.push('53');
  params.push(...colour(attrs.getFgColorMode(), attrs.getFgColor(), 30));
  params.push(...colour(attrs.getBgColorMode(), attrs.getBgColor(), 40));
  return params.length > 0 ? `\x1b[${params.join(';')}m` : '';
}

/** The SGR sequence for a background colour alone (xterm.js colour mode and value). */
export function backgroundSgr(mode: number, value: number): string {
  return `\x1b[${colour(mode, value, 40).join(';') || '49'}m`;
}

/** `base` is 30 for the foreground, 40 for the background. */
function colour(mode: number, value: number, base: number): string[] {
  if (mode === PALETTE_16) return [String(value < 8 ? base + value : base + 60 + value - 8)];
  if (mode === PALETTE_256) return [`${base + 8};5;${value}`];
  if (mode === RGB) return [`${base + 8};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`];
  return [];
}
