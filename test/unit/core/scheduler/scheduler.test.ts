/** The scheduler runs only in the lease holder, and is woken by store changes, not by a tick. */
import * as assert from 'node:assert/strict';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

/** Far longer than any test here: nothing below can be explained by a periodic pass. */
const NO_TICK_MS = 600_000;

describe('scheduler: leader only, woken by store changes', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a job queued by another process is launched by the leader at once, and by no follower', async () => {
    const leader = sb.coordinator({ maxConcurrent: 1 }, { tickMs: NO_TICK_MS });
    await leader.ready;
    const follower = sb.coordinator({ maxConcurrent: 1 }, { tickMs: NO_TICK_MS });
    await follower.ready;
    assert.equal(leader.isLeader, true);
    assert.equal(follower.isLeader, false);

    // A CLI process (no scheduler) cannot take the lease, so its start stays queued for the leader.
    const cli = sb.coordinator({ maxConcurrent: 1 }, { tickMs: 0, watch: false });
    const long = await cli.start({ repo: sb.repo, title: 'for the leader', command: ['sleep', '30'] });
    assert.equal(long.lifecycle.state, 'queued');
    const started = Date.now();
    await sb.waitForState(long.id, ['running'], 10_000);
    assert.ok(Date.now() - started < 8000, `launched after ${Date.now() - started} ms`);

    // Capacity is full: the next one waits. Then the leader goes, and the slot frees.
    const next = await cli.start({ repo: sb.repo, title: 'for the next leader', command: ['true'] });
    assert.equal(next.lifecycle.state, 'queued');
    leader.dispose();
    await leader.whenIdle();
    await cli.stop(long.id);
    await sleep(1500);
    assert.equal((await sb.store.read(next.id)).lifecycle.state, 'queued', 'a process that does not lead launched it');
    assert.equal(follower.isLeader, false);
    await follower.tick(); // its next lease attempt, brought forward
    assert.equal(follower.isLeader, true);
    assert.equal((await sb.waitEnded(next.id, 10_000)).lifecycle.state, 'completed');
  });
});
