import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { shellQuote } from '../../../../src/core/common/shellQuote';
import { decodeName, encodeName } from '../../../../src/core/git/pathBytes';

/** The bytes bash makes of `word`, one word, in `locale`. */
function bashBytes(word: string, locale: string): Buffer {
  return execFileSync('bash', ['-c', `printf %s ${word}`], { env: { ...process.env, LC_ALL: locale } });
}

// Bug 197's review: `$'…'` spelled a C1 character `\x85` (the one byte 0x85, not UTF-8's C2 85: the
// command named another file) and others `\u2028`, which bash leaves as six characters under LC_ALL=C.
describe('shellQuote (a word the person runs in their shell)', () => {
  const texts = [
    'plain/path',
    "it's",
    'p/a\u0085b',
    'a\u2028b\u2029c',
    'x\u202ey\u2066z',
    'line\nbreak\ttab\rcr',
    'nul-free \x01\x1b[31m\x7f\\ back\\slash',
    '\u009b31m pässwörd 日本 🙂 \x07',
    `$'quote' "double" \`tick\` $(x)`,
  ];

  for (const locale of ['C', 'C.UTF-8']) {
    it(`is the text's exact UTF-8 bytes in bash under LC_ALL=${locale}`, () => {
      for (const text of texts) {
        assert.deepEqual(bashBytes(shellQuote(text), locale), Buffer.from(text, 'utf8'), JSON.stringify(text));
      }
    });
  }

  it('writes a file name that is not UTF-8 (a lone U+DC80–U+DCFF) as its raw byte', () => {
    const name = decodeName(Buffer.from([0x61, 0xff, 0x0a, 0x80, 0x62]));
    assert.deepEqual(bashBytes(shellQuote(name), 'C'), encodeName(name));
    assert.deepEqual(encodeName(name), Buffer.from([0x61, 0xff, 0x0a, 0x80, 0x62]));
  });

  it('shows no control character as it is: every one is an escape', () => {
    // eslint-disable-next-line no-control-regex -- the check is for control characters
    assert.doesNotMatch(shellQuote('a\u0085\x1b\u2028\nb'), /[\x00-\x1f\x7f-\x9f\u2028]/);
  });
});
