/** File names as bytes: every name survives decode → encode, and a name that is UTF-8 is the string it always was. */
import * as assert from 'node:assert/strict';
import { decodeName, encodeName, fsPath } from '../../../../src/core/git/pathBytes';
import { printable } from '../../../../src/core/common/printable';

describe('git: file names as bytes', () => {
  it('round-trips every byte sequence, and leaves valid UTF-8 (U+FFFD and astral characters included) as it decodes', () => {
    const samples = [
      Buffer.from('plain.txt'),
      Buffer.from('café 日本 😀 \ufffd.txt'),
      Buffer.from([0x62, 0x61, 0x64, 0xff, 0x6e]),
      Buffer.from([0xc3]), // a truncated sequence
      Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate, not valid UTF-8
      Buffer.from([0xe0, 0x80, 0xaf]), // overlong
      Buffer.from([0xf4, 0x90, 0x80, 0x80]), // beyond U+10FFFF
    ];
    for (let i = 0; i < 2000; i++) samples.push(Buffer.from(Array.from({ length: 1 + (i % 9) }, (_, k) => (i * 131 + k * 197) % 256)));
    for (const bytes of samples) {
      const name = decodeName(bytes);
      assert.deepEqual(encodeName(name), bytes, bytes.toString('hex'));
      const text = bytes.toString('utf8');
      if (Buffer.from(text, 'utf8').equals(bytes)) assert.equal(name, text);
    }
    assert.equal(fsPath('plain'), 'plain');
    assert.deepEqual(fsPath(decodeName(Buffer.from([0x61, 0xff]))), Buffer.from([0x61, 0xff]));
    assert.equal(printable(decodeName(Buffer.from([0x61, 0xff, 0x0a]))), 'a\\xff\\n');
  });
});
