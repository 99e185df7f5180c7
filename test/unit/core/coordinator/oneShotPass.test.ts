/**
 * Bug 170, its passes: a one-shot coordinator (the CLI's) gave the lease up as its pump ended, but a
 * pass (a `paddock list`'s Refresh, or the one its HeldLocks asks for when an agent's operation lock
 * it found held is let go during a launch) took the lease back for a leader's other work and kept it
 * until its process exited: an agent another command queued meanwhile stayed queued with a slot free.
 * And a pass asked of one that did not lead tried the lease again at once, again and again (its
 * leaseRetryMs is 0). Every pump and pass now ends with one step: the lease given up, the queue looked
 * at once more. Real store, locks, workers and agents: two one-shot coordinators on one store.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { jobLock } from '../../../../src/core/operations/context';
import { Leadership, leaderLock } from '../../../../src/core/scheduler/leadership';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('a one-shot coordinator: every pass ends with the lease given up', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a pass (tick) gives the lease up as it ends: a start queued next launches at once', async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    await one.tick();
    assert.equal(one.isLeader, false, 'the one-shot coordinator still leads after its pass');
    assert.equal(await leaderLock(sb.home).owner(), undefined, 'the lease is still held');
    const second = await two.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    const launched = await sb.waitFor(second.id, (j) => j.lifecycle.state !== 'queued', 10_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    await two.stop(second.id, { force: true });
  });

  it("the pass asked for when another agent's operation lock is let go during a launch gives the lease up too", async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    // `y`: its start still assigns the worktree (its lock held). `one`'s launch of `x` is held at the capacity lock.
    const y = await sb.createQueued('its start still assigns the worktree');
    await sleep(5); // queued before x
    const yLock = await jobLock(sb.store, y.id).tryAcquire();
    const capacity = await new OwnedLock(join(sb.home, 'coordinator', 'capacity.lock'), 'capacity').tryAcquire();
    assert.ok(yLock && capacity);
    const starting = one.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    // Leading and holding x's lock: its pump passed y (found held, so watched) and waits at the capacity lock.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const x = (await sb.store.list()).find((e) => e.ok && e.job.id !== y.id);
      if (one.isLeader && x?.ok && (await jobLock(sb.store, x.job.id).owner()) !== undefined) break;
      if (Date.now() > deadline) throw new Error('the one-shot coordinator never came to the capacity lock');
      await sleep(20);
    }
    await yLock.release();
    await sleep(1600); // its HeldLocks looks each second: y is free, and a pass is asked for while it leads
    await capacity.release();
    const x = await starting;
    await one.whenIdle();
    assert.equal(one.isLeader, false, 'the one-shot coordinator took the lease back in its pass and kept it');
    const z = await two.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    const launched = await sb.waitFor(z.id, (j) => j.lifecycle.state !== 'queued', 10_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    await Promise.all([one.stop(x.id, { force: true }), two.stop(z.id, { force: true })]);
  });

  it('a pass of one that cannot take the lease (another process leads) does not try it again and again', async () => {
    const one = sb.coordinator();
    const other = await leaderLock(sb.home).tryAcquire(); // a window's or a background coordinator
    assert.ok(other);
    const refresh = Leadership.prototype.refresh;
    let tries = 0;
    Leadership.prototype.refresh = function (this: Leadership) {
      tries++;
      return refresh.call(this);
    };
    try {
      await one.tick();
      await sleep(1000);
    } finally {
      Leadership.prototype.refresh = refresh;
      await other.release();
    }
    // Before: its lease retry (leaseRetryMs 0) brought a pass at once after each, ~50 a second.
    assert.ok(tries <= 2, `${tries} tries of the lease in 1 s`);
    assert.equal(one.isLeader, false);
  });
  it('a look that finds free a lock the claim cannot take (a dead holder mid-takeover) does not send it round and round, and the agent launches once it can be taken', async () => {
    const y = await sb.createQueued('its lock held by a dead process killed mid-takeover');
    const held = await jobLock(sb.store, y.id).tryAcquire();
    assert.ok(held);
    // The lock's owner files name a pid that does not exist, and a fresh takeover folder stands beside it.
    const folder = join(dirname(held.path), await fs.readlink(held.path));
    for (const name of await fs.readdir(folder)) {
      const owner = JSON.parse(await fs.readFile(join(folder, name), 'utf8')) as Record<string, unknown>;
      await fs.writeFile(join(folder, name), JSON.stringify({ ...owner, pid: 4_000_000 }));
    }
    await fs.mkdir(`${held.path}.takeover`);
    const leads: string[] = [];
    const one = sb.coordinator({}, { log: (m) => (/now leads/.test(m) ? leads.push(m) : undefined) });
    await one.tick();
    one.dispose(); // as the CLI's command ends
    await one.whenIdle();
    // Before, it took the lease, claimed nothing and looked again for the takeover's 2 s: hundreds of rounds.
    // Rounds at a 250 ms backoff for those 2 s now, the lease given up between them.
    assert.ok(leads.length <= 16, `${leads.length} rounds of taking the lease in one pass`);
    // Stopped after two rounds, it left the agent queued for good: no watch armed, the lease free (bug 221).
    // Queued with no worktree (its start stood in for by this test), so its launch fails it, saying so.
    const after = await sb.store.read(y.id);
    assert.notEqual(after.lifecycle.state, 'queued', 'left queued once the lock could be taken');
    assert.equal(await leaderLock(sb.home).owner(), undefined);
  });
});
