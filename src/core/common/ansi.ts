/**
 * Turns raw terminal output into readable text for a log view: removes escape
 * sequences (CSI, OSC, DCS, two-byte ESC) and applies carriage returns and
 * backspaces the way a terminal would show the final line.
 */
/* eslint-disable no-control-regex -- matching terminal control characters is this module's job */
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[()*+][0-9A-Za-z]|[@-Z\\-_=>78])/g;

export function stripTerminalControls(text: string): string {
  const plain = text.replace(ESCAPES, '').replace(/\r\n/g, '\n');
  return plain
    .split('\n')
    .map((line) => {
      // A bare CR returns to column 0: the text after the last CR overwrites the start.
      const segments = line.split('\r');
      let out = '';
      for (const seg of segments) out = seg + out.slice(seg.length);
      // A backspace erases the character before it (inside a regex, \b would mean a word boundary).
      while (out.includes('\x08')) out = out.replace(/[^\x08]\x08/, '').replace(/^\x08+/, '');
      return out.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
    })
    .join('\n');
}
