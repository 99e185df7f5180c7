/**
 * The text of terminal output as a terminal shows it: escape sequences (CSI,
 * OSC, DCS/SOS/PM/APC, other ESC sequences) and control characters that print
 * nothing are left out, with a map from each visible character back to its
 * index in the raw text. Redaction matches secrets in this view, so colour
 * codes or cursor moves inside a secret (`grep --color`) cannot split it.
 *
 * TAB, LF, CR and BS stay visible: they move the cursor and separate what is
 * before them from what is after, like a space would.
 *
 * Works the same on text and on UTF-8 bytes read as latin1: every character
 * it looks at is ASCII.
 */

/* eslint-disable no-control-regex -- finding terminal control characters is this module's job */
/**
 * Any character that can start or be part of something invisible: every C0
 * control but BS, TAB, LF and CR, and DEL. (Written as the complement: V8
 * scans a negated class of ranges faster.)
 */
const INVISIBLE = /[^\x08-\x0a\x0d\x20-\x7e\x80-\uffff]/;

const ESC = 0x1b;
const BEL = 0x07;

const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  /** OSC, DCS, SOS, PM, APC: a payload up to BEL or ESC \. */
  String,
  StringEscape,
}

export interface Projection {
  /** What a terminal would print, in order. */
  visible: string;
  /** Raw index of each visible character; null when `visible` is the raw text itself. */
  map: Int32Array | null;
  /**
   * Raw index where an escape sequence still open at the end of the text began
   * (more output completes it), or -1.
   */
  openAt: number;
}

/** False for the common case: text that a terminal prints as it is (no escape, no invisible control). */
export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/**
 * The controls that output actually carries: escape sequences, NUL, BEL,
 * SO/SI (charset switches) and DEL. Each is one memchr-like scan, together
 * several times cheaper than `hasInvisible`: the stream's fast path uses
 * this, and the rarer silent controls are skipped only in output that has
 * one of these too.
 */
const COMMON_INVISIBLE = ['\x1b', '\x00', '\x07', '\x0e', '\x0f', '\x7f'];

/** `hasInvisible` for the controls output actually carries (see COMMON_INVISIBLE); cheap. */
export function mayHaveInvisible(text: string): boolean {
  for (const c of COMMON_INVISIBLE) if (text.includes(c)) return true;
  return false;
}

/** Whether a C0 control other than TAB, LF, CR and BS (which move the cursor) prints nothing. */
function isSilentControl(c: number): boolean {
  return (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x08) || c === 0x7f;
}

/** `text` as a terminal shows it, with where each shown character came from. */
export function project(text: string): Projection {
  if (!hasInvisible(text)) return { visible: text, map: null, openAt: -1 };
  const map = new Int32Array(text.length);
  const runs: string[] = [];
  let n = 0;
  let runStart = -1;
  let state = State.Ground;
  let openAt = -1;
  const endRun = (at: number): void => {
    if (runStart >= 0) runs.push(text.slice(runStart, at));
    runStart = -1;
  };
  let i = 0;
  /** Leaves a malformed sequence: the current character is looked at again as text. */
  const abort = (): State => {
    i--;
    openAt = -1;
    return State.Ground;
  };
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    switch (state) {
      case State.Ground:
        if (c === ESC) {
          endRun(i);
          state = State.Escape;
          openAt = i;
        } else if (isSilentControl(c)) {
          endRun(i);
        } else {
          if (runStart < 0) runStart = i;
          map[n++] = i;
        }
        break;
      case State.Escape:
        if (c === 0x5b) state = State.Csi; // [
        else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) state = State.String; // ] P X ^ _
        else if (c >= 0x20 && c <= 0x2f) state = State.EscapeIntermediate;
        else if (c === ESC) openAt = i;
        else if (c >= 0x30 && c <= 0x7e) state = State.Ground;
        else state = abort();
        break;
      case State.EscapeIntermediate:
        if (c >= 0x30 && c <= 0x7e) state = State.Ground;
        else if (c < 0x20 || c > 0x2f) state = abort();
        break;
      case State.Csi:
        if (c >= 0x40 && c <= 0x7e) state = State.Ground;
        else if (c === ESC) {
          state = State.Escape;
          openAt = i;
        } else if (c > 0x7e || !(c >= 0x20 || isSilentControl(c))) state = abort();
        // Parameters, intermediates and controls inside a CSI print nothing.
        break;
      case State.String:
        if (c === BEL) state = State.Ground;
        else if (c === ESC) state = State.StringEscape;
        break;
      case State.StringEscape:
        if (c === 0x5c) state = State.Ground; // ESC \ ends the string
        else {
          // Another sequence starts: the string ended at its ESC.
          openAt = i - 1;
          state = State.Escape;
          i--;
        }
        break;
    }
  }
  if (state === State.Ground) openAt = -1;
  endRun(text.length);
  return { visible: runs.join(''), map: map.subarray(0, n), openAt };
}
