/**
 * What a viewer's terminal hands over, brought within what the protocol carries: the worker
 * closes a connection whose frame is out of bounds (an `input` longer than MAX_INPUT_CHARS, a
 * size outside 2–1000 × 2–500), so a large paste or a terminal squeezed to nothing would lose
 * the paste and the connection. One rule for every viewer (the window's terminal, `paddock attach`).
 */
import { MAX_COLS, MAX_INPUT_CHARS, MAX_ROWS, MIN_DIMENSION } from './messages';

/** `text` cut into pieces of at most MAX_INPUT_CHARS, never between the two halves of a surrogate pair. */
export function inputPieces(text: string, max = MAX_INPUT_CHARS): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + max);
    // A high surrogate last would be sent alone (and reach the agent as U+FFFD): keep it with its pair.
    if (end < text.length && end - start > 1 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** A terminal's size as the protocol carries it: a terminal outside the bounds gets the nearest size. */
export function viewerSize(cols: number, rows: number): { cols: number; rows: number } {
  return { cols: clamp(cols, MIN_DIMENSION, MAX_COLS), rows: clamp(rows, MIN_DIMENSION, MAX_ROWS) };
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(n) || min));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
