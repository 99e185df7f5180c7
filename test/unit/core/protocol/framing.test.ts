import * as assert from 'node:assert/strict';
import { binaryOutputHeader, completeUtf8Length, decodeFrame, encodeFrame, LineDecoder } from '../../../../src/core/protocol/framing';
import { ClientMessageSchema, ServerMessageSchema } from '../../../../src/core/protocol/messages';

describe('framing', () => {
  function collect(max = 64) {
    const lines: string[] = [];
    let oversize = 0;
    const d = new LineDecoder((l) => lines.push(l), () => oversize++, max);
    return { d, lines, oversize: () => oversize };
  }

  it('splits lines across arbitrary chunk boundaries, including inside UTF-8 characters', () => {
    const text = `${encodeFrame({ type: 'input', data: 'héllo ✓' })}${encodeFrame({ type: 'detach' })}`;
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { d, lines } = collect(1024);
      d.push(bytes.subarray(0, cut));
      d.push(bytes.subarray(cut));
      assert.deepEqual(lines.map((l) => JSON.parse(l)), [{ type: 'input', data: 'héllo ✓' }, { type: 'detach' }]);
    }
  });

  it('reports a line longer than the limit once and stops', () => {
    const { d, lines, oversize } = collect(10);
    d.push(Buffer.from('0123456789abc'));
    d.push(Buffer.from('\n{"ok":1}\n'));
    assert.equal(oversize(), 1);
    assert.deepEqual(lines, []);
  });

  it('a limit raised by the first line (once a connection authenticates) holds for the rest of the same read, byte by byte too (bug 163)', () => {
    const long = 'x'.repeat(40);
    const bytes = Buffer.from(`first\n${long}\n`);
    for (const step of [bytes.length, 1]) {
      const reasons: string[] = [];
      const lines: string[] = [];
      const d: LineDecoder = new LineDecoder((l) => {
        lines.push(l);
        d.setLineLimit(64, 'frame');
      }, (r) => reasons.push(r), 10, undefined, 'first frame');
      for (let at = 0; at < bytes.length; at += step) d.push(bytes.subarray(at, at + step));
      assert.deepEqual(reasons, []);
      assert.deepEqual(lines, ['first', long]);
    }
    const reasons: string[] = [];
    new LineDecoder(() => undefined, (r) => reasons.push(r), 10, undefined, 'first frame').push(Buffer.from('0123456789ab'));
    assert.deepEqual(reasons, ['first frame longer than 10 bytes']);
  });

  it('accepts a line of exactly the limit, split or not', () => {
    const { d, lines, oversize } = collect(10);
    d.push(Buffer.from('01234'));
    d.push(Buffer.from('56789\n'));
    assert.equal(oversize(), 0);
    assert.deepEqual(lines, ['0123456789']);
  });

  it('holds a line that arrives a byte per read in memory near its size (a peer writing byte by byte)', () => {
    const bytes = 512 * 1024;
    const { d, lines } = collect(1024 * 1024);
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = used();
    for (let i = 0; i < bytes; i++) d.push(Buffer.alloc(1, 0x61)); // what a socket read of one byte gives
    const grown = used() - before;
    assert.ok(grown < 16 * 1024 * 1024, `${bytes} bytes pending took ${Math.round(grown / 1024 / 1024)} MB`);
    d.push(Buffer.from('\n'));
    assert.equal(lines.length, 1);
    assert.equal(lines[0], 'a'.repeat(bytes));
  });

  it('validates messages both ways and never throws', () => {
    assert.equal(decodeFrame('{', ClientMessageSchema).ok, false);
    assert.equal(decodeFrame('null', ClientMessageSchema).ok, false);
    assert.equal(decodeFrame('{"type":"resize","cols":1,"rows":24}', ClientMessageSchema).ok, false);
    assert.equal(decodeFrame('{"type":"resize","cols":80,"rows":24}', ClientMessageSchema).ok, true);
    assert.equal(decodeFrame('{"type":"input","data":"x","extra":true}', ClientMessageSchema).ok, false);
    assert.equal(decodeFrame('{"type":"output","data":"\\u001b[0m"}', ServerMessageSchema).ok, true);
    assert.equal(decodeFrame('{"type":"exit","code":0,"signal":null,"state":"completed"}', ServerMessageSchema).ok, true);
    assert.equal(decodeFrame('{"type":"exit","code":0,"signal":null,"state":"bogus"}', ServerMessageSchema).ok, false);
  });

  describe('binary output frames', () => {
    const binary = (text: string) => {
      const payload = Buffer.from(text);
      return Buffer.concat([binaryOutputHeader(payload.length), payload]);
    };
    function collectAll() {
      const frames: string[] = [];
      const invalid: string[] = [];
      const d = new LineDecoder(
        (l) => frames.push(`line:${l}`),
        (reason) => invalid.push(reason),
        1024,
        (t) => frames.push(`out:${t}`),
      );
      return { d, frames, invalid };
    }

    it('decodes them between JSON lines across every cut, inside the header and inside a character', () => {
      const bytes = Buffer.concat([
        Buffer.from(encodeFrame({ type: 'size', cols: 80, rows: 24 })),
        binary('héllo ✓ 😀\r\n'),
        binary('x'),
        Buffer.from(encodeFrame({ type: 'ack', id: 1 })),
      ]);
      const want = ['line:{"type":"size","cols":80,"rows":24}', 'out:héllo ✓ 😀\r\n', 'out:x', 'line:{"type":"ack","id":1}'];
      for (let a = 1; a < bytes.length; a++) {
        for (const b of [a + 1, a + 3, bytes.length]) {
          const { d, frames, invalid } = collectAll();
          d.push(bytes.subarray(0, a));
          d.push(bytes.subarray(a, b));
          d.push(bytes.subarray(b));
          assert.deepEqual(frames, want, `cut at ${a}/${b}`);
          assert.deepEqual(invalid, []);
        }
      }
      const { d, frames } = collectAll();
      for (const byte of bytes) d.push(Buffer.from([byte]));
      assert.deepEqual(frames, want, 'one byte at a time');
    });

    it('reports a header with an empty or oversized payload once and stops', () => {
      for (const length of [0, 1024 * 1024 + 1]) {
        const { d, frames, invalid } = collectAll();
        d.push(Buffer.concat([binaryOutputHeader(length), Buffer.from('abc\n{"type":"detach"}\n')]));
        assert.deepEqual(frames, []);
        assert.equal(invalid.length, 1);
        assert.match(invalid[0], /invalid length/);
      }
    });

    it('are plain (invalid) lines to a decoder that does not take them: the worker side', () => {
      const lines: string[] = [];
      const d = new LineDecoder((l) => lines.push(l), () => assert.fail('not oversize'));
      d.push(Buffer.concat([binary('hi'), Buffer.from('\n')]));
      assert.equal(lines.length, 1);
      assert.equal(decodeFrame(lines[0], ClientMessageSchema).ok, false);
    });
  });

  it('finds where a UTF-8 character is cut at the end of a buffer', () => {
    const text = Buffer.from('aé✓😀');
    // 'a' 1 byte, 'é' 2, '✓' 3, '😀' 4: the complete lengths are 1, 3, 6 and 10.
    const want = [0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10];
    for (let n = 0; n <= text.length; n++) assert.equal(completeUtf8Length(text.subarray(0, n)), want[n], `first ${n} bytes`);
    assert.equal(completeUtf8Length(Buffer.from([0x80, 0x80])), 2, 'stray continuation bytes wait for nothing');
  });
});
