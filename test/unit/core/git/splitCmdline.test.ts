/**
 * `branch.<name>.mergeOptions` split into words as git splits it (each case as git 2.39 reads it:
 * `'--no-ff' plainword` makes a merge commit, `--no-ff 'oops` stops git merge).
 */
import * as assert from 'node:assert/strict';
import { mergeSettingsFrom } from '../../../../src/core/git/mergeSettings';
import { splitCmdline } from '../../../../src/core/git/splitCmdline';

describe('git: splitCmdline', () => {
  it('splits on runs of spaces, tabs and line ends outside quotes, and drops the quotes', () => {
    assert.deepEqual(splitCmdline("  --log=3\t -X 'ours'\n"), { ok: true, words: ['--log=3', '-X', 'ours'] });
    assert.deepEqual(splitCmdline(`--gpg-sign="ABC 123" 'a b'"c"`), { ok: true, words: ['--gpg-sign=ABC 123', 'a bc'] });
    assert.deepEqual(splitCmdline(String.raw`a\ b "x\"y" 'p\q'`), { ok: true, words: ['a b', 'x"y', String.raw`p\q`] });
    assert.deepEqual(splitCmdline(''), { ok: true, words: [] });
  });

  it("gives git's errors back: an unclosed quote, a backslash at the end", () => {
    assert.deepEqual(splitCmdline("--no-ff 'oops"), { ok: false, reason: 'it has an unclosed quote' });
    assert.deepEqual(splitCmdline('--no-ff \\'), { ok: false, reason: 'it ends in a backslash' });
  });
});

describe('git: mergeSettingsFrom reads mergeOptions as git does', () => {
  const settingsOf = (mergeOptions: string) => mergeSettingsFrom([{ key: 'branch.main.mergeoptions', value: mergeOptions }], 'main');

  it('a quoted option is the option; a word that is no option, or one after --, is passed over', () => {
    const quoted = settingsOf("'--no-ff' plainword");
    assert.equal(quoted.fastForward.policy, 'never');
    assert.deepEqual(quoted.unhonoured, []);
    assert.equal(settingsOf('--gpg-sign="ABC123"').gpgSign, '-SABC123');
    assert.deepEqual(settingsOf('-- --squash').unhonoured, []);
    assert.deepEqual(settingsOf('-nq --compact-summary --no-allow-unrelated-histories').unhonoured, [], 'options without effect, short ones together too');
  });

  it('a string git cannot read is refused, naming it', () => {
    const bad = settingsOf("--no-ff 'oops");
    assert.equal(bad.unhonoured.length, 1);
    assert.equal(bad.unhonoured[0].setBy, 'branch.main.mergeOptions');
    assert.match(bad.unhonoured[0].why, /unclosed quote/);
  });
});
