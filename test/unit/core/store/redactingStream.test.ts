import * as assert from 'node:assert/strict';
import { Redactor } from '../../../../src/core/store';
import { RedactingStream } from '../../../../src/core/store/redactingStream';

const ESC = '\x1b';
const SECRET = 'Zq9-hunter2-SECRET-value';
const REDACTED = '[REDACTED]';

/** A secret split by escape sequences the way programs print it. */
const DISGUISES: [string, (s: string) => string][] = [
  ['grep --color', (s) => `${s.slice(0, 4)}${ESC}[01;31m${ESC}[K${s.slice(4, 10)}${ESC}[m${ESC}[K${s.slice(10)}`],
  ['a cursor move', (s) => `${s.slice(0, 7)}${ESC}[1C${s.slice(7)}`],
  ['an erase', (s) => `${s.slice(0, 3)}${ESC}[K${s.slice(3)}`],
  ['an OSC title', (s) => `${s.slice(0, 5)}${ESC}]0;x\x07${s.slice(5, 12)}${ESC}]2;y${ESC}\\${s.slice(12)}`],
  ['a colour on every character', (s) => [...s].map((c, i) => (i === 0 ? c : `${ESC}[38;5;${i}m${c}`)).join('')],
  ['silent controls', (s) => `${s.slice(0, 2)}\x00\x07${s.slice(2, 9)}\x0e\x0f${s.slice(9)}`],
];

function collect(redactor: Redactor): { stream: RedactingStream; text: () => string } {
  const out: Buffer[] = [];
  const stream = new RedactingStream(redactor, (chunks) => out.push(...chunks), (err) => {
    throw err;
  });
  return { stream, text: () => Buffer.concat(out).toString('utf8') };
}

describe('redacting stream: secrets split by escape sequences', () => {
  for (const [name, disguise] of DISGUISES) {
    it(`redacts a secret split by ${name}, the sequences inside included, however the output is cut`, () => {
      const shown = disguise(SECRET);
      const text = `before ${ESC}[32mok${ESC}[0m ${shown} after\r\n`;
      for (let cut = 0; cut <= text.length; cut++) {
        const { stream, text: written } = collect(new Redactor([SECRET]));
        stream.append(Buffer.from(text.slice(0, cut)));
        stream.append(Buffer.from(text.slice(cut)));
        stream.end();
        assert.equal(written(), `before ${ESC}[32mok${ESC}[0m ${REDACTED} after\r\n`, `cut at ${cut}`);
      }
    });
  }

  it('holds back a secret split by escapes across a quiet flush, and the sequence still open at the end', () => {
    const shown = DISGUISES[0][1](SECRET);
    for (let cut = 1; cut < shown.length; cut++) {
      const { stream, text: written } = collect(new Redactor([SECRET]));
      stream.append(Buffer.from(`$ grep key .env\r\n${shown.slice(0, cut)}`));
      stream.flush();
      assert.ok(!written().includes(SECRET.slice(0, 4)), `first part written at cut ${cut}: ${JSON.stringify(written())}`);
      assert.ok(!written().includes(ESC + '[01;'), `an open sequence was written at cut ${cut}`);
      stream.append(Buffer.from(`${shown.slice(cut)}\r\n`));
      stream.end();
      assert.equal(written(), `$ grep key .env\r\n${REDACTED}\r\n`, `cut at ${cut}`);
    }
  });

  it('holds back a token shape started before a quiet flush', () => {
    const token = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx';
    const { stream, text: written } = collect(new Redactor([]));
    stream.append(Buffer.from(`key: ${ESC}[1m${token.slice(0, 12)}`));
    stream.flush();
    assert.equal(written(), `key: ${ESC}[1m`);
    stream.append(Buffer.from(`${token.slice(12)}${ESC}[0m done`));
    stream.end();
    assert.equal(written(), `key: ${ESC}[1m${REDACTED}${ESC}[0m done`);
  });

  // Bug 67: a quiet flush held back only what could start a secret at the end; a whole secret whose
  // end starts another (or itself) was cut there, and each part went to disk unredacted.
  it('never cuts a whole secret at a quiet flush when its end could start another', () => {
    for (const [secrets, text] of [
      [['qqsecretvalueqq'], 'line qqsecretvalueqq'],
      [['qqsecretvalueqq'], 'two qqsecretvalueqqqqsecretvalueqq'],
      [['hunter2-abc', 'abc-other-secret'], 'say hunter2-abc'],
      [['qqsecretvalueqq'], `colour ${ESC}[1mqqsecret${ESC}[0mvalueqq`],
    ] as const) {
      const redactor = new Redactor([...secrets]);
      const { stream, text: written } = collect(redactor);
      stream.append(Buffer.from(text));
      stream.flush();
      for (const secret of secrets) assert.ok(!written().includes(secret.slice(0, 6)), `${JSON.stringify(text)}: ${JSON.stringify(written())}`);
      stream.append(Buffer.from(' and on\n'));
      stream.end();
      assert.equal(written(), redactor.redact(`${text} and on\n`));
      for (const secret of secrets) assert.ok(!written().includes(secret), written());
    }
  });

  it('finds a token shape right after a colour code (no word boundary in the raw bytes)', () => {
    const token = 'ghp_0123456789abcdefABCDEF0123456789abcd';
    const { stream, text: written } = collect(new Redactor([]));
    stream.append(Buffer.from(`${ESC}[31m${token}${ESC}[0m\n`));
    stream.end();
    assert.equal(written(), `${ESC}[31m${REDACTED}${ESC}[0m\n`);
  });

  it('redacts a secret stretched by escapes far beyond the bytes normally held back, cut anywhere', () => {
    const shown = [...SECRET].map((c) => `${ESC}]8;;https://example.invalid/${'x'.repeat(40)}${ESC}\\${c}`).join('');
    const text = `${'filler line\r\n'.repeat(50)}${shown} end`;
    for (let cut = 0; cut <= text.length; cut += 97) {
      const { stream, text: written } = collect(new Redactor([SECRET]));
      stream.append(Buffer.from(text.slice(0, cut)));
      stream.append(Buffer.from(text.slice(cut)));
      stream.end();
      assert.equal(written(), `${'filler line\r\n'.repeat(50)}${shown.slice(0, shown.indexOf(SECRET[0]))}${REDACTED} end`, `cut at ${cut}`);
    }
  });

  it('leaves output with escapes but no secret byte for byte as it was', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `${ESC}[3${i % 8}mline ${i}${ESC}[0m ${ESC}]0;t${i}\x07\r\n`).join('');
    const { stream, text: written } = collect(new Redactor([SECRET]));
    for (let at = 0; at < text.length; at += 4093) stream.append(Buffer.from(text.slice(at, at + 4093)));
    stream.end();
    assert.equal(written(), text);
  });
});

describe('redactor: text with escape sequences', () => {
  it('redacts a secret split by escape sequences in a string (final screen, details)', () => {
    const r = new Redactor([SECRET]);
    for (const [name, disguise] of DISGUISES) assert.equal(r.redact(`x ${disguise(SECRET)} y`), `x ${REDACTED} y`, name);
  });

  it('still redacts a secret inside an escape sequence payload (a title, the clipboard)', () => {
    assert.equal(new Redactor([SECRET]).redact(`${ESC}]0;${SECRET}\x07`), `${ESC}]0;${REDACTED}\x07`);
  });
});
