/**
 * How a terminal is switched between its main and alternate screens, as xterm.js reads it: a DEC
 * private mode set/reset (`CSI ? Pm h/l`) naming 1049, 1047 or 47 anywhere in its list
 * (`?1049;25h` and `?25;1049h` switch as `?1049h` does), or RIS, which leaves the alternate screen.
 * `paddock attach` keeps the agent's switches from the outer terminal and the window follows them
 * to keep a full-screen agent's last screen in view (bug 172); one rule for both, as a watch that
 * knew only a lone `?1049h` missed the lists some programs write.
 */
/* eslint-disable no-control-regex -- matching terminal escape sequences is this module's job */

/** DEC private modes that switch screens: 1049 (with cursor save), 1047, 47. */
export const SCREEN_MODES = new Set([47, 1047, 1049]);
/**
 * A private mode set/reset (its list and action captured), RIS, or DECSTR (soft reset). CSI is
 * `ESC [` or its 8-bit form U+009B, which xterm.js reads the same (`\x9b?1049h` switches its
 * screen): a rule that knew only `ESC [` missed a program's switch written that way (bug 222).
 */
export const PRIVATE_MODE_OR_RESET = /(?:\x1b\[|\x9b)\?([\d;]*)([hl])|\x1bc|(?:\x1b\[|\x9b)!p/g;
/**
 * An escape sequence at the end of a write that may still become one of the above (or a window
 * operation, `CSI Ps ; … t`) when the next write comes: it is held back and read with that one.
 */
export const UNFINISHED = /\x1b(?:\[(?:\?[\d;]*|!|[\d;]+)?)?$|\x9b(?:\?[\d;]*|!|[\d;]+)?$/;

/** Whether `text` may hold (the start of) a sequence above: without ESC or the 8-bit CSI it holds none. */
export function mayHoldSequence(text: string): boolean {
  return text.includes('\x1b') || text.includes('\x9b');
}

/** Whether a private mode list (the digits and semicolons of `CSI ? Pm h/l`) names a screen switch. */
export function switchesScreen(modes: string): boolean {
  return modes.split(';').some((m) => SCREEN_MODES.has(Number(m)));
}

/** `text` split where an unfinished sequence at its end begins: what can be read now, and what waits. */
export function heldBack(text: string): { complete: string; carry: string } {
  const unfinished = UNFINISHED.exec(text);
  return unfinished ? { complete: text.slice(0, unfinished.index), carry: unfinished[0] } : { complete: text, carry: '' };
}
