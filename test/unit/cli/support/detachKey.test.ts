import * as assert from 'node:assert/strict';
import { findDetachKey } from '../../../../src/cli/support/detachKey';

describe('findDetachKey', () => {
  const find = (s: string) => findDetachKey(Buffer.from(s, 'latin1'));

  it('finds the plain Ctrl-\\ byte after typed text', () => {
    assert.deepEqual(find('ab\x1c'), { at: 2, length: 1 });
  });

  it('finds Ctrl-\\ as the kitty keyboard protocol and modifyOtherKeys send it', () => {
    assert.deepEqual(find('x\x1b[92;5u'), { at: 1, length: 7 });
    assert.deepEqual(find('\x1b[92;5:1u'), { at: 0, length: 9 }, 'press event');
    assert.deepEqual(find('\x1b[92::124;5u'), { at: 0, length: 12 }, 'alternate keys');
    assert.deepEqual(find('\x1b[92;69u'), { at: 0, length: 8 }, 'with Caps Lock');
    assert.deepEqual(find('\x1b[27;5;92~'), { at: 0, length: 10 }, 'modifyOtherKeys');
  });

  it('ignores other keys, other modifiers and the release of the key', () => {
    assert.equal(find('\x1b[92u'), undefined, 'a plain backslash');
    assert.equal(find('\x1b[92;7u'), undefined, 'Ctrl-Alt-\\');
    assert.equal(find('\x1b[99;5u'), undefined, 'Ctrl-C');
    assert.equal(find('\x1b[92;5:3u'), undefined, 'release');
    assert.equal(find('plain text'), undefined);
  });
});
