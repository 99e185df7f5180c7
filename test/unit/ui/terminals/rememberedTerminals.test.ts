import * as assert from 'node:assert/strict';
import { readRemembered, stillToAttach } from '../../../../src/ui/terminals/rememberedTerminals';

describe('the terminals a window remembers across a reload', () => {
  it('brings back every terminal of an agent shown in several, less those open already', () => {
    const writer = { jobId: 'a1', readOnly: false };
    const viewer = { jobId: 'a1', readOnly: true };
    const other = { jobId: 'b2', readOnly: false };
    assert.deepEqual(stillToAttach([viewer, writer, other], []), [viewer, writer, other]);
    assert.deepEqual(stillToAttach([viewer, writer, other], [writer]), [viewer, other]);
    assert.deepEqual(stillToAttach([writer, writer], [writer]), [writer]);
    assert.deepEqual(stillToAttach([writer], [viewer, other]), [writer]);
  });

  it('reads back only well-formed entries of what was stored', () => {
    assert.deepEqual(readRemembered(undefined), []);
    assert.deepEqual(readRemembered({ jobId: 'a1', readOnly: false }), []);
    assert.deepEqual(
      readRemembered([null, 'a1', { jobId: 'a1' }, { jobId: 7, readOnly: true }, { jobId: '', readOnly: true }, { jobId: 'a1', readOnly: true, extra: 1 }]),
      [{ jobId: 'a1', readOnly: true }],
    );
  });
});
