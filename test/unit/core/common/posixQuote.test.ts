/**
 * Bug 198's review: restore's link-by-hand advice spelled a path with a raw byte as bash's `$'…'`,
 * which dash reads as a `$` and text (mktemp was given `$/tmp/…`). posixWord and printfFormat are
 * the text's exact bytes in dash, bash and zsh-free sh alike, in any locale: checked in real shells.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { posixWord, printfFormat } from '../../../../src/core/common/posixQuote';
import { decodeName, encodeName } from '../../../../src/core/git/pathBytes';

/** The bytes `shell` makes of `script` (one word printed, or a format printed), in `locale`. */
const run = (shell: string, script: string, locale: string): Buffer => execFileSync(shell, ['-c', script], { env: { ...process.env, LC_ALL: locale } });

describe('posixQuote (words for any POSIX shell)', () => {
  const texts = [
    'plain/path',
    "it's",
    'p/a\u0085b',
    'a\u2028b\u2029c',
    'line\nbreak\ttab\rcr',
    'nul-free \x01\x1b[31m\x7f\\ back\\slash 100% %s',
    '\u009b31m pässwörd 日本 🙂 \x07',
    `$'quote' "double" \`tick\` $(x)`,
    decodeName(Buffer.from([0x61, 0xff, 0x0a, 0x80, 0x62])),
  ];

  for (const shell of ['dash', 'bash']) {
    for (const locale of ['C', 'C.UTF-8']) {
      it(`posixWord and printfFormat are the text's exact bytes in ${shell} under LC_ALL=${locale}`, () => {
        for (const text of texts) {
          assert.deepEqual(run(shell, `printf %s ${posixWord(text)!}`, locale), encodeName(text), JSON.stringify(text));
          assert.deepEqual(run(shell, `printf ${printfFormat(`${text}\n`)}`, locale), encodeName(`${text}\n`), JSON.stringify(text));
        }
      });
    }
  }

  it("gives no word for text ending in a newline (a command substitution would drop it), and never bash's $'…'", () => {
    assert.equal(posixWord('a\udcff\n'), null);
    for (const text of texts) assert.match(posixWord(text)!, /^('[^]*'|"\$\(printf '[^]*'\)")$/);
    assert.equal(posixWord('a\udcffb'), `"$(printf 'a\\377b')"`);
  });
});
