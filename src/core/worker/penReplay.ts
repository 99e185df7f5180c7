/**
 * The pen a terminal writes its next character in, as the sequences that set it from the default
 * pen: SGR with the underline's style and colour, and the hyperlink (OSC 8) it is writing.
 */
import type { Terminal } from '@xterm/headless';
import { sgrOf } from './sgr';
import { linkInternals, penInternals } from './xtermInternals';

/** OSC 8 with no link: ends the one being written. */
export const END_LINK = '\x1b]8;;\x1b\\';

/**
 * The pen the program's next character is written in, hyperlink included: while the pen has it
 * (DECRC, which xterm.js restores only colours and flags with, leaves it aside until an SGR).
 */
export function penReplay(term: Terminal): string {
  const pen = penInternals(term);
  if (!pen) return '';
  const urlId = pen.hasExtendedAttrs?.() ? pen.extended?.urlId : 0;
  return sgrOf(pen, pen.extended) + (urlId ? openLink(term, urlId) : '');
}

/** OSC 8 for the link `id` of `term`; its text came from the program, and stays text (xterm.js keeps no control character in it). */
export function openLink(term: Terminal, id: number): string {
  const link = linkInternals(term, id);
  if (!link) return '';
  return `\x1b]8;${link.id ? `id=${strip(link.id)}` : ''};${strip(link.uri)}\x1b\\`;
}

function strip(text: string): string {
  // eslint-disable-next-line no-control-regex -- the controls that would end or garble the sequence
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, '');
}
