/**
 * Bug 220: an operation of a one-shot coordinator (the CLI's) that frees a slot — a Stop, a Clean Up
 * (Keep This One's too) — or a check that ends asked for a pump in the background; every CLI command
 * ends in `withCoordinator` (dispose, then `whenIdle`), so the pump found the coordinator disposed and
 * launched nothing. The agent waiting for that slot stayed queued after the command exited. Bug 170's
 * own case through the CLI: `start A` leads, `start B` queues B (seeing A's live lease, no background
 * coordinator), `stop A`. The command launches nothing in its foreground (its review: a stop waited
 * for others' whole launches): as it ends, it starts the background coordinator, as `start` does.
 * Real store, locks, workers and agents; each command here runs as `withCoordinator` runs it.
 */
import * as assert from 'node:assert/strict';
import { asOneCommand } from '../../../../src/cli/support/session';
import type { Coordinator } from '../../../../src/core/coordinator';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { cliContextFor } from './cliContext';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from './coordinatorFixture';

describe('the agent waiting for the slot a one-shot operation freed is launched, by the background coordinator the CLI starts', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  /** What the commands said on stderr (the background coordinator's line among it). */
  let said = '';
  useCoordinatorSandbox((fresh) => {
    sb = fresh;
    said = '';
  });

  /** As `withCoordinator` runs a CLI command: a fresh one-shot coordinator, disposed as `fn` returns, then the queue left to a coordinator. */
  async function asTheCli<T>(fn: (c: Coordinator) => Promise<T>): Promise<T> {
    return asOneCommand(cliContextFor(sb, (text) => (said += text)), sb.coordinator({ maxConcurrent: 1 }), fn);
  }

  /** One slot held by a running agent, a second agent queued for it; both ids. */
  async function oneQueuedBehind(): Promise<{ holder: string; waiting: string }> {
    const holder = await asTheCli((c) => c.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] }));
    assert.equal(holder.lifecycle.state, 'running');
    const waiting = await asTheCli((c) => c.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] }));
    assert.equal(waiting.lifecycle.state, 'queued', 'the one slot is taken');
    return { holder: holder.id, waiting: waiting.id };
  }

  /** Once the command ended, with no other command run: launched by the background coordinator it started. */
  async function assertLaunched(id: string, stderr = said): Promise<void> {
    assert.match(stderr, /queued with no coordinator running: a background coordinator will launch it/);
    const launched = await sb.waitFor(id, (j) => j.lifecycle.state !== 'queued' && j.lifecycle.state !== 'starting', 20_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
  }

  it('a Stop', async () => {
    const { holder, waiting } = await oneQueuedBehind();
    await asTheCli((c) => c.stop(holder, { force: true }));
    await assertLaunched(waiting);
    await asTheCli((c) => c.stop(waiting, { force: true }));
  });

  it('a Clean Up of a running agent (stopped, then its worktree removed)', async () => {
    const { holder, waiting } = await oneQueuedBehind();
    const report = await asTheCli((c) => c.cleanup(holder, { deleteBranch: true }));
    assert.equal(report.job.cleanup?.phase, 'complete');
    await assertLaunched(waiting);
    await asTheCli((c) => c.stop(waiting, { force: true }));
  });

  it('a check that ends (it held the slot while it ran)', async () => {
    const ended = await asTheCli((c) => c.start({ repo: sb.repo, command: ['sh', '-c', 'exit 0'] }));
    await sb.waitEnded(ended.id);
    let waiting: string | undefined;
    await asTheCli(async (c) => {
      const check = c.check(ended.id, { settingCommand: 'sleep 1' });
      await sb.waitFor(ended.id, (j) => j.check?.state === 'running', 10_000);
      const queued = await asTheCli((other) => other.start({ repo: sb.repo, command: ['sh', '-c', 'sleep 30'] }));
      assert.equal(queued.lifecycle.state, 'queued', 'the running check holds the one slot');
      waiting = queued.id;
      return check;
    });
    await assertLaunched(waiting!);
    await asTheCli((c) => c.stop(waiting!, { force: true }));
  });

  it('bug 170 through the real CLI: `start A` leading as `start B` queues, then `stop A` launches B', async () => {
    sb.store.policy.write({ maxConcurrent: 1 });
    const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });
    const first = await cli(['start', '--title', 'A', '--', 'sh', '-c', 'sleep 30']);
    assert.equal(first.code, 0, first.stderr);
    // A's `paddock start` still leading (this test holds the lease for it): B's start leaves B to it, no background coordinator.
    const lease = await leaderLock(sb.home).tryAcquire();
    assert.ok(lease);
    const second = await cli(['start', '--title', 'B', '--', 'sh', '-c', 'sleep 30']);
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /background coordinator/, second.stderr);
    const waiting = second.stdout.trim();
    await lease.release(); // A's process exits, its last look having found the one slot taken
    assert.equal((await sb.store.read(waiting)).lifecycle.state, 'queued');
    const stopped = await cli(['stop', '--force', first.stdout.trim()]);
    assert.equal(stopped.code, 0, stopped.stderr);
    await assertLaunched(waiting, stopped.stderr);
    assert.equal((await cli(['stop', '--force', waiting])).code, 0);
  });
});
