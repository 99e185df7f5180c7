import * as assert from 'node:assert/strict';
import { DrainMarker } from '../../../../src/core/worker/drain';

describe('DrainMarker', () => {
  it('removes the marker from raw output however it is cut, and passes every other byte through', () => {
    const before = Buffer.from('out ✓ \x1b[0m\x1b]7777;not-it\x07 ');
    const after = Buffer.from([0xe2, 0x9c, 0x93, 0xff]); // a character and an invalid byte, kept as they are
    for (let cut = 0; cut <= 60; cut++) {
      const d = new DrainMarker();
      const all = Buffer.concat([before, Buffer.from(d.marker, 'latin1'), after]);
      const first = d.filter(all.subarray(0, cut));
      const second = d.filter(all.subarray(cut));
      assert.deepEqual(Buffer.concat([first.bytes, second.bytes, d.end()]), Buffer.concat([before, after]), `cut at ${cut}`);
      assert.equal(first.found || second.found, true);
      assert.equal(d.drained, true);
    }
  });

  it('gives back a held partial marker at the end of the stream', () => {
    const d = new DrainMarker();
    const partial = Buffer.from(d.marker.slice(0, 5), 'latin1');
    assert.deepEqual(d.filter(Buffer.concat([Buffer.from('tail'), partial])).bytes, Buffer.from('tail'));
    assert.deepEqual(d.end(), partial);
    assert.equal(d.drained, false);
  });
});
