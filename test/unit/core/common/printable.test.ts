import * as assert from 'node:assert/strict';
import { isPrintable, printable } from '../../../../src/core/common/printable';

describe('printable (text Paddock did not write, shown on a terminal or in the UI)', () => {
  it('shows every C0 and C1 control and DEL as an escape, LF and CR by name, TAB as a space', () => {
    assert.equal(printable('a\x1b]52;c;aGk=\x07b'), 'a\\x1b]52;c;aGk=\\x07b');
    assert.equal(printable('title\nfake row\r'), 'title\\nfake row\\r');
    assert.equal(printable('x\x1b[2Jy\x7fz\u009b31m\x00'), 'x\\x1b[2Jy\\x7fz\\x9b31m\\x00');
    assert.equal(printable('a\tb'), 'a b');
    assert.equal(printable('abc\u202egnp.exe'), 'abc\\u202egnp.exe');
  });

  it('leaves ordinary text, Unicode included, exactly as it is', () => {
    for (const text of ['fix the tests', 'pässwörd ✓ 日本語 🙂', 'a\\b "quoted" | pipes']) {
      assert.equal(printable(text), text);
      assert.ok(isPrintable(text));
    }
  });

  it('never lets a control character through, whatever the input', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(printable(all), /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  });
});
