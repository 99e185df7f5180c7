/** The scheduler runs only in the lease holder, and is woken by store changes, not by a tick. */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { damageRecord } from '../store/helpers';

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

  // Found by hand: a record damaged while its agent ran freed its slot, and the next queued agent
  // started past maxConcurrent; the listing did not say the agent still ran.
  it('an agent whose record becomes unreadable while its worker runs keeps its slot', async () => {
    const leader = sb.coordinator({ maxConcurrent: 1 }, { tickMs: NO_TICK_MS });
    await leader.ready;
    const running = await leader.start({ repo: sb.repo, title: 'damaged while running', command: ['sleep', '30'] });
    await sb.waitForState(running.id, ['running'], 10_000);
    const recordFile = join(sb.home, 'jobs', running.id, 'job.json');
    const intact = readFileSync(recordFile);
    await damageRecord(sb.home, running.id, '{garbage');

    const queued = await leader.start({ repo: sb.repo, title: 'must wait', command: ['true'] });
    assert.equal(queued.lifecycle.state, 'queued');
    await leader.tick();
    await sleep(1500);
    assert.equal((await sb.store.read(queued.id)).lifecycle.state, 'queued', 'started past maxConcurrent');
    const snapshot = await leader.snapshot();
    assert.equal(snapshot.capacity.used, 1);
    const damaged = snapshot.jobs.find((e) => e.id === running.id);
    assert.ok(damaged && !damaged.ok && /its worker is still running/.test(damaged.reason), JSON.stringify(damaged));

    // Mended by hand and stopped: the slot frees and the queued agent runs.
    writeFileSync(recordFile, intact);
    await leader.stop(running.id);
    assert.equal((await sb.waitEnded(queued.id, 10_000)).lifecycle.state, 'completed');
  });
});
