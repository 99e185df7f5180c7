/**
 * The last text an agent wrote, in the order it wrote it: what the waiting detector reads to tell
 * a question the agent just asked from the same words printed earlier in its output (a file it
 * showed, a log). The screen says *that* a question is visible; only the stream says it was among
 * the last things written. Colours and modes are dropped; a move of the cursor off its line is taken
 * for a line break (what follows is written somewhere else).
 */
import { StringDecoder } from 'node:string_decoder';

/* eslint-disable no-control-regex -- reading terminal escape sequences is this module's job */

/** Lines kept (the newest, blank ones not kept): a question is among the last few, never further back. */
const MAX_LINES = 16;
/** Columns kept of one line: a question fits. */
const MAX_COLS = 1024;
/** An escape sequence cut at a chunk's end is kept for the next chunk, up to this long. */
const MAX_CARRY = 256;

// CSI (ESC [ … final), OSC (ESC ] … BEL/ST), DCS/SOS/PM/APC (ESC P|X|^|_ … ST), and other ESC sequences.
const SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[ -/]*[0-OQ-WYZ\\`-~]/g;
/** CSI finals that move the cursor up, down, to a place, or clear or scroll the screen: what follows is written elsewhere. */
const MOVES = new Set([...'ABEFHJLMSTdefr']);

/**
 * The line being written is kept as a terminal keeps it (a carriage return or a backspace moves
 * back, what follows overwrites, erasing in the line erases); a line break or a move elsewhere
 * ends it.
 */
export class WrittenText {
  private lines: string[] = [];
  private line: string[] = [];
  private col = 0;
  private carry = '';
  private readonly decoder = new StringDecoder('utf8');

  /** Adds what the agent wrote (raw bytes, as they came). */
  append(bytes: Buffer | string): void {
    let s = this.carry + (typeof bytes === 'string' ? bytes : this.decoder.write(bytes));
    this.carry = '';
    const esc = s.lastIndexOf('\x1b');
    if (esc >= 0 && s.length - esc < MAX_CARRY && !completeAt(s, esc)) {
      this.carry = s.slice(esc);
      s = s.slice(0, esc);
    }
    let last = 0;
    for (const m of s.matchAll(SEQUENCE)) {
      this.text(s.slice(last, m.index));
      this.sequence(m[0]);
      last = m.index + m[0].length;
    }
    this.text(s.slice(last));
  }

  /** Forgets everything written so far. */
  clear(): void {
    this.lines = [];
    this.line = [];
    this.col = 0;
    this.carry = '';
  }

  /** The last `n` lines written that are not blank, joined by \n. */
  lastLines(n: number): string {
    const current = this.line.join('');
    const lines = current.trim() === '' ? this.lines : [...this.lines, current];
    return lines.slice(-n).join('\n');
  }

  private text(t: string): void {
    for (const ch of t) {
      if (ch === '\n') this.endLine();
      else if (ch === '\r') this.col = 0;
      else if (ch === '\b') this.col = Math.max(0, this.col - 1);
      else if (ch === '\t') this.col = Math.min(MAX_COLS, (Math.floor(this.col / 8) + 1) * 8);
      else if (ch >= ' ' && ch !== '\x7f') this.put(ch);
    }
  }

  private put(ch: string): void {
    if (this.col >= MAX_COLS) return;
    while (this.line.length < this.col) this.line.push(' ');
    this.line[this.col++] = ch;
  }

  private endLine(): void {
    const line = this.line.join('');
    if (line.trim() !== '') this.lines.push(line);
    if (this.lines.length > MAX_LINES) this.lines.shift();
    this.line = [];
    this.col = 0;
  }

  private sequence(seq: string): void {
    if (!seq.startsWith('\x1b[')) {
      // Index, reverse index, next line, restoring the cursor, a full reset: elsewhere.
      if (/^\x1b[DMEc8]$/.test(seq)) this.endLine();
      return;
    }
    const final = seq[seq.length - 1];
    if (seq[2] >= '<' && seq[2] <= '?') return; // private: modes, reports
    const n = Number.parseInt(seq.slice(2), 10);
    if (MOVES.has(final)) this.endLine();
    else if (final === 'C' || final === 'a') this.col = Math.min(MAX_COLS, this.col + (n || 1));
    else if (final === 'D') this.col = Math.max(0, this.col - (n || 1));
    else if (final === 'G' || final === '`') this.col = Math.min(MAX_COLS, Math.max(0, (n || 1) - 1));
    else if (final === 'K') this.line = n === 2 ? [] : n === 1 ? this.line.map((c, i) => (i <= this.col ? ' ' : c)) : this.line.slice(0, this.col);
    else if (final === 'X') for (let i = this.col; i < Math.min(this.line.length, this.col + (n || 1)); i++) this.line[i] = ' ';
  }
}

/** Whether the escape sequence starting at `at` is whole (or not one we can finish: a lone ESC at most). */
function completeAt(s: string, at: number): boolean {
  const re = new RegExp(SEQUENCE.source, 'y');
  re.lastIndex = at;
  return re.test(s);
}
