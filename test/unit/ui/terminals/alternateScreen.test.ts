import * as assert from 'node:assert/strict';
import { AlternateScreenWatch } from '../../../../src/ui/terminals/alternateScreen';

/** Whether the watch finds the terminal on the alternate screen after each write. */
function after(...writes: string[]): boolean[] {
  const watch = new AlternateScreenWatch();
  return writes.map((w) => (watch.note(w), watch.on));
}

describe('whether a terminal is on the alternate screen (bug 172)', () => {
  it('follows 1049, 1047 and 47, the last one written winning, and RIS leaves it', () => {
    assert.deepEqual(after('a\x1b[?1049hb', 'c', '\x1b[?1049l', '\x1b[?47h\x1b[?1047l\x1b[?1047h', '\x1bc'), [true, true, false, true, false]);
  });

  it('a switch cut between two writes is counted, once', () => {
    assert.deepEqual(after('x\x1b[?10', '49h', 'y', '\x1b[?1049', 'l'), [false, true, true, true, false]);
    // The tail kept from a write that ended in a switch does not count it again after a later one.
    assert.deepEqual(after('\x1b[?1049h', '\x1b[?1049l', 'z'), [true, false, false]);
  });
});
