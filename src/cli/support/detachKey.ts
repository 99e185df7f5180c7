/**
 * Finds the detach key (Ctrl-\) in what the person's terminal sent. Terminals
 * with the kitty keyboard protocol on (kitty, WezTerm, foot, Ghostty; the agent
 * turns it on and the replayed screen keeps it on) do not send the byte 0x1c but
 * `CSI 92 ; 5 u`, and with more flags `CSI 92 ; 5 : 1 u` (event type) or
 * `CSI 92 :: … ; 5 u` (alternate keys); xterm's modifyOtherKeys sends
 * `CSI 27 ; 5 ; 92 ~`. Caps Lock and Num Lock may be reported as modifiers too.
 */
/* eslint-disable no-control-regex -- matching the escape sequences keys arrive as is this module's job */

/** Ctrl-\ as a plain byte (like dtach's default). */
export const DETACH_BYTE = 0x1c;

const CSI_U = /\x1b\[92(?::\d*)*;(\d+)(?::(\d+))?(?:;[\d:]*)?u/g;
const MODIFY_OTHER_KEYS = /\x1b\[27;(\d+);92~/g;
const CTRL = 4;
const LOCKS = 64 | 128;
/** Event types of the kitty protocol: 1 press, 2 repeat, 3 release. */
const RELEASE = 3;

/** Where the detach key starts in `data` and how long it is, if it is there. */
export function findDetachKey(data: Buffer): { at: number; length: number } | undefined {
  const byteAt = data.indexOf(DETACH_BYTE);
  let found = byteAt >= 0 ? { at: byteAt, length: 1 } : undefined;
  // ESC is below 0x80 and every sequence is ASCII, so latin1 keeps byte offsets.
  const text = data.toString('latin1');
  for (const match of [...text.matchAll(CSI_U), ...text.matchAll(MODIFY_OTHER_KEYS)]) {
    if (!isCtrlOnly(Number(match[1]))) continue;
    if (match[2] !== undefined && Number(match[2]) === RELEASE) continue;
    const at = match.index ?? 0;
    if (!found || at < found.at) found = { at, length: match[0].length };
  }
  return found;
}

/** The protocol's modifier value is 1 + a bit field; Ctrl alone (Lock keys aside) is 5. */
function isCtrlOnly(modifiers: number): boolean {
  return ((modifiers - 1) & ~LOCKS) === CTRL;
}
