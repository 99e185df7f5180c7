import * as assert from 'node:assert/strict';
import { decodeFrame, encodeFrame, LineDecoder } from '../../../../src/core/protocol/framing';
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

  it('accepts a line of exactly the limit, split or not', () => {
    const { d, lines, oversize } = collect(10);
    d.push(Buffer.from('01234'));
    d.push(Buffer.from('56789\n'));
    assert.equal(oversize(), 0);
    assert.deepEqual(lines, ['0123456789']);
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
});
