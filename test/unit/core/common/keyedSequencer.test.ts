import * as assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyedSequencer } from '../../../../src/core/common/keyedSequencer';

/** A task named `name` that takes `ms`, noting in `events` when it begins and ends; it resolves with its name. */
function noting(events: string[]) {
  return (name: string, ms: number) => async () => {
    events.push(`${name} begins`);
    await sleep(ms);
    events.push(`${name} ends`);
    return name;
  };
}

describe('KeyedSequencer', () => {
  it('runs the tasks of one key one after another, in the order given, whatever each takes', async () => {
    const sequencer = new KeyedSequencer();
    const events: string[] = [];
    const task = noting(events);
    const results = await Promise.all([sequencer.run('a', task('slow', 40)), sequencer.run('a', task('quick', 1)), sequencer.run('a', task('last', 5))]);
    assert.deepEqual(results, ['slow', 'quick', 'last']);
    assert.deepEqual(events, ['slow begins', 'slow ends', 'quick begins', 'quick ends', 'last begins', 'last ends']);
    assert.equal(sequencer.busyKeys, 0, 'nothing kept once the key is idle');
  });

  it('runs different keys side by side', async () => {
    const sequencer = new KeyedSequencer();
    const events: string[] = [];
    const task = noting(events);
    await Promise.all([sequencer.run('a', task('a', 30)), sequencer.run('b', task('b', 1))]);
    assert.deepEqual(events, ['a begins', 'b begins', 'b ends', 'a ends']);
  });

  it('a failing task gives its caller the error and the next task still runs', async () => {
    const sequencer = new KeyedSequencer();
    const failed = sequencer.run('a', async () => {
      await sleep(5);
      throw new Error('broken');
    });
    const next = sequencer.run('a', async () => 'ran');
    await assert.rejects(failed, /broken/);
    assert.equal(await next, 'ran');
  });
});
