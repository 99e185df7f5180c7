/**
 * `Closing`: the signal a closing process gives what it runs in sessions of its own, the grace it
 * asks them to end with, and the bounded wait for them (the end to end cases are in
 * test/unit/core/coordinator/closing.test.ts).
 */
import * as assert from 'node:assert/strict';
import { Closing, eitherAbort, graceOnAbort } from '../../../../src/core/common/closing';

describe('Closing', () => {
  it('waits for the work it holds, and no longer than its bound', async () => {
    const closing = new Closing();
    let ended = false;
    void closing.run(undefined, (abort) => new Promise<void>((resolve) => abort.addEventListener('abort', () => setTimeout(() => ((ended = true), resolve()), 100))));
    await closing.close(5000);
    assert.equal(ended, true, 'close resolved before the held work ended');

    const stuck = new Closing();
    void stuck.run(undefined, () => new Promise<void>(() => undefined));
    const at = Date.now();
    await stuck.close(300);
    const took = Date.now() - at;
    assert.ok(took >= 290 && took < 2000, `a held piece of work that never ends is waited for ${took} ms`);
  });

  it('asks for a grace that fits its bound, through a signal joined with another', async () => {
    const closing = new Closing();
    const person = new AbortController();
    const joined = eitherAbort(person.signal, closing.signal)!;
    assert.equal(graceOnAbort(joined, 5000), 5000, 'not aborted: the usual grace');
    void closing.close(3000);
    assert.equal(joined.aborted, true);
    assert.equal(graceOnAbort(joined, 5000), 1000);
    assert.equal(graceOnAbort(joined, 500), 500, 'never longer than the usual one');

    // A person's interrupt keeps the usual grace.
    const interrupt = new AbortController();
    const other = eitherAbort(interrupt.signal, new Closing().signal)!;
    interrupt.abort();
    assert.equal(graceOnAbort(other, 5000), 5000);
  });

  it('joins only the signals given', () => {
    const one = new AbortController().signal;
    assert.equal(eitherAbort(undefined, one), one);
    assert.equal(eitherAbort(undefined, undefined), undefined);
  });
});
