/**
 * Redaction of plain text (no escape sequences): every match of every secret is
 * gone, also where matches overlap each other.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { REDACTED, Redactor } from '../../../../src/core/store/redactor';

describe('Redactor on plain text', () => {
  it('hides the whole of a secret written twice where its end is its beginning', () => {
    const secret = 'qqsecretvalueqq';
    assert.equal(new Redactor([secret]).redact(`>${secret}secretvalueqq<`), `>${REDACTED}<`);
  });

  it('hides both of two secrets that share characters where they meet', () => {
    assert.equal(new Redactor(['abcdef', 'defghi']).redact('xxabcdefghixx'), `xx${REDACTED}xx`);
    assert.equal(new Redactor(['defghi', 'abcdef']).redact('xxabcdefghixx'), `xx${REDACTED}xx`);
  });

  it('leaves text without a secret as it was, and redacts a token shape beside a secret', () => {
    const r = new Redactor(['hunter2hunter2']);
    assert.equal(r.redact('nothing to hide here'), 'nothing to hide here');
    const token = `ghp_${'a'.repeat(36)}`;
    assert.equal(r.redact(`pw hunter2hunter2 and ${token}.`), `pw ${REDACTED} and ${REDACTED}.`);
  });

  it('hides every character that lies in a match and keeps every other (random texts and secrets over two letters)', () => {
    const letters = fc.string({ unit: fc.constantFrom('a', 'b'), minLength: 4, maxLength: 7 });
    fc.assert(
      fc.property(fc.array(letters, { minLength: 1, maxLength: 3 }), fc.string({ unit: fc.constantFrom('a', 'b', ' '), maxLength: 60 }), (secrets, text) => {
        // The characters a match covers, found the slow way: at every position, every secret.
        const covered = new Array<boolean>(text.length).fill(false);
        for (let i = 0; i < text.length; i++) for (const s of secrets) if (text.startsWith(s, i)) covered.fill(true, i, i + s.length);
        const kept = [...text].filter((_, i) => !covered[i]).join('');
        const shown = new Redactor(secrets).redact(text);
        assert.equal(shown.split(REDACTED).join(''), kept, `${JSON.stringify(text)} with ${JSON.stringify(secrets)} was shown as ${JSON.stringify(shown)}`);
      }),
      { numRuns: 2000, seed: 70 },
    );
  });
});
