/**
 * Bug 170: a one-shot coordinator (the CLI's: `paddock start`, `retry`, …) kept the leader lease from
 * its first launch until its process exited. A second one queuing an agent meanwhile found the lease
 * held, so left the agent to that leader (and its command, seeing a live leader, started no background
 * coordinator), but the holder never looked at the queue again: the agent stayed queued with a slot
 * free until a later `list` or `show`. A one-shot coordinator now gives the lease up as its launches
 * end. Real store, locks, workers and agents: two one-shot coordinators on one store.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { asOneCommand } from '../../../../src/cli/support/session';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { jobLock } from '../../../../src/core/operations/context';
import { AutomaticChecks } from '../../../../src/core/scheduler/automaticChecks';
import { Leadership, leaderLock } from '../../../../src/core/scheduler/leadership';
import { cliContextFor } from './cliContext';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('a one-shot coordinator and the leader lease', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('gives the lease up once its launch ended: an agent another one-shot start queues next launches at once', async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    const first = await one.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    assert.equal(first.lifecycle.state, 'running');
    assert.equal(one.isLeader, false, 'the one-shot coordinator still leads after its launch');
    assert.equal(await leaderLock(sb.home).owner(), undefined, 'the lease is still held');
    // `one` is not disposed (its command still printing): before, it held the lease, so this start queued.
    const second = await two.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    const launched = await sb.waitFor(second.id, (j) => j.lifecycle.state !== 'queued', 10_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    await Promise.all([one.stop(first.id, { force: true }), two.stop(second.id, { force: true })]);
  });

  it('gives the lease up after a retry too: a start queued next launches at once', async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    const job = await one.start({ repo: sb.repo, command: ['sh', '-c', 'exit 0'] });
    await sb.waitEnded(job.id);
    const retried = await one.retry(job.id);
    assert.notEqual(retried.lifecycle.state, 'queued');
    assert.equal(one.isLeader, false, 'the one-shot coordinator still leads after its retry');
    const second = await two.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    const launched = await sb.waitFor(second.id, (j) => j.lifecycle.state !== 'queued', 10_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    await two.stop(second.id, { force: true });
  });

  it('looks at the queue again once it gave the lease up: an agent queued after its last look, while it led, launches', async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    // `one`'s pump lists the queue (only `gone` in it), then waits for the capacity lock this test holds.
    const gone = await sb.createQueued('cancelled while it waits');
    const capacity = await new OwnedLock(join(sb.home, 'coordinator', 'capacity.lock'), 'capacity').tryAcquire();
    assert.ok(capacity);
    const pass = one.tick();
    const deadline = Date.now() + 10_000;
    while ((await jobLock(sb.store, gone.id).owner()) === undefined) {
      if (Date.now() > deadline) throw new Error('the one-shot coordinator never came to the queued agent');
      await sleep(20);
    }
    // Queued while `one` leads, after its look: `two` finds the lease held and leaves the agent to it.
    const second = await two.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    assert.equal(second.lifecycle.state, 'queued');
    await sb.store.transition(gone.id, 'cancelled');
    await capacity.release();
    await pass;
    const launched = await sb.waitFor(second.id, (j) => j.lifecycle.state !== 'queued', 10_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    await two.stop(second.id, { force: true });
  });
  it("looks again at an agent whose lock it found held: one whose holder let go and pumped while it still held the lease launches", async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    // `y`: queued by another command, whose start still holds its lock when `one`'s pump passes it.
    const y = await sb.createQueued('queued by another command');
    const yLock = await jobLock(sb.store, y.id).tryAcquire();
    assert.ok(yLock);
    const release = Leadership.prototype.release;
    let entered!: () => void;
    const releasing = new Promise<void>((resolve) => (entered = resolve));
    // `one` held up between its last look at the queue and its release (two cores shared, CI under load).
    Leadership.prototype.release = async function (this: Leadership) {
      entered();
      await sleep(500);
      return release.call(this);
    };
    try {
      const starting = one.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
      await releasing;
      // The other command lets go of y's lock, then pumps: it finds the lease held by `one`, and leaves y to it.
      await yLock.release();
      await (two as unknown as { scheduler: { pump(): Promise<void> } }).scheduler.pump();
      assert.equal((await sb.store.read(y.id)).lifecycle.state, 'queued');
      const x = await starting;
      // Before: y was skipped as "seen" at the last look, and stayed queued with no leader.
      const taken = await sb.waitFor(y.id, (j) => j.lifecycle.state !== 'queued', 10_000);
      // Queued with no worktree (its start stood in for by this test), so its launch fails it, saying so.
      assert.notEqual(taken.lifecycle.state, 'queued');
      await one.stop(x.id, { force: true });
    } finally {
      Leadership.prototype.release = release;
    }
  });

  it('bug 193: an operation refused on a queued agent pumps once it lets go of its lock: a one-shot look that found it held left the agent to it', async () => {
    const one = sb.coordinator();
    const two = sb.coordinator();
    const y = await sb.createQueued('queued while a refused update holds its lock');
    // Stands in for the start of `two`'s `paddock update y`: its lock held while `one` looks at the queue.
    const yLock = await jobLock(sb.store, y.id).tryAcquire();
    assert.ok(yLock);
    // As the CLI's withCoordinator (session.ts) runs it: disposed as it returns, the queue then left to a coordinator.
    const update = asOneCommand(cliContextFor(sb), two, (c) => c.update(y.id)).then(
      () => assert.fail('an update of a queued agent was not refused'),
      (err: unknown) => err,
    );
    // `one`'s pump and its last look find y's lock held: y is its holder's to launch.
    await one.tick();
    assert.equal((await sb.store.read(y.id)).lifecycle.state, 'queued');
    await yLock.release();
    // `two` takes the lock, refuses (no worktree yet) and lets go. Before: without a pump, y stayed queued.
    const err = await update;
    // Before: its pump, begun in the background, read the store after the dispose and launched nothing.
    one.dispose();
    await one.whenIdle();
    assert.match(String(err), /has no worktree to update|has not started/);
    const taken = await sb.waitFor(y.id, (j) => j.lifecycle.state !== 'queued', 10_000);
    // Queued with no worktree (its start stood in for by this test), so its launch fails it, saying so.
    assert.notEqual(taken.lifecycle.state, 'queued');
  });

  it("bug 193: a one-shot pass that restarts a crashed agent keeps the lease through its leader work, then launches it", async () => {
    const c = sb.coordinator({ autoRestart: true, recoveryLimit: 1 });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'exit 1'] });
    await sb.waitFor(job.id, (j) => j.lifecycle.state === 'failed');
    const schedule = AutomaticChecks.prototype.schedule;
    let leaderAfterChecks: unknown = 'not looked';
    // The pass's last leader work made slow (a check's config read on a loaded machine): a pump beside it has ended by then.
    AutomaticChecks.prototype.schedule = async function (this: AutomaticChecks, jobs) {
      await schedule.call(this, jobs);
      await sleep(1500);
      leaderAfterChecks = await leaderLock(sb.home).owner();
    };
    try {
      await c.tick();
    } finally {
      AutomaticChecks.prototype.schedule = schedule;
    }
    // Before: the restart's pump ran beside the pass and gave the lease up as it ended, mid-pass.
    assert.notEqual(leaderAfterChecks, undefined, 'the lease was given up while the pass still did a leader\'s work');
    const restarted = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && !['queued', 'starting'].includes(j.lifecycle.state), 10_000);
    assert.equal(restarted.recoveries, 1);
  });

  it('a Stop from a one-shot coordinator that gave the lease up leaves the agent waiting for the slot it freed to the background coordinator', async () => {
    const c = sb.coordinator({ maxConcurrent: 1 });
    const holder = await c.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    assert.equal(holder.lifecycle.state, 'running');
    const waiting = await c.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] });
    assert.equal(waiting.lifecycle.state, 'queued', 'the one slot is taken');
    assert.equal(c.isLeader, false, 'the one-shot coordinator gave the lease up');
    // As the CLI runs it (bug 220): the command launches nothing in its foreground.
    await asOneCommand(cliContextFor(sb), c, (cc) => cc.stop(holder.id, { force: true }));
    const launched = await sb.waitFor(waiting.id, (j) => !['queued', 'starting'].includes(j.lifecycle.state), 20_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    await sb.coordinator().stop(waiting.id, { force: true });
  });
});
