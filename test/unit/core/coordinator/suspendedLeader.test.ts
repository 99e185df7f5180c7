/**
 * Bug 115: a leader suspended with SIGSTOP (a Ctrl-Z'd `paddock coordinate`) kept the leader lease:
 * alive, so never taken over, and launching nothing, so queued agents stayed queued for as long as
 * it stayed stopped — in a window as well as from the CLI, whose `start` took it for "the running
 * coordinator" and started none. A follower that sees it stopped for LEASE_SUSPENDED_MS takes the
 * lease over; the leader, continued, finds the lease gone before it acts. Real CLI processes.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('a suspended leader', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  let leader: ChildProcess | undefined;
  let leaderLog = '';
  useCoordinatorSandbox((fresh) => (sb = fresh));
  afterEach(() => {
    if (leader?.pid === undefined) return;
    for (const sig of ['SIGKILL', 'SIGCONT'] as const) {
      try {
        process.kill(leader.pid, sig);
      } catch {
        // gone
      }
    }
    leader = undefined;
  });

  /** `paddock coordinate` leading the sandbox's store, then suspended as Ctrl-Z would. */
  async function suspendedLeader(): Promise<number> {
    leaderLog = join(sb.home, 'leader.log');
    const fd = openSync(leaderLog, 'a');
    leader = spawn(process.execPath, [CLI_SCRIPT, 'coordinate'], { env: sb.env, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    const deadline = Date.now() + 15_000;
    while ((await leaderLock(sb.home).owner())?.pid !== leader.pid) {
      if (Date.now() > deadline) throw new Error('the CLI coordinator never took the lease');
      await sleep(25);
    }
    process.kill(leader.pid!, 'SIGSTOP');
    return leader.pid!;
  }

  it('has its lease taken over by a window, which launches the queue; continued, it knows it lost the lease', async () => {
    const pid = await suspendedLeader();
    const c = sb.coordinator({}, { tickMs: 100 });
    await c.ready;
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    const done = await sb.waitEnded(job.id, 15_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.equal(c.isLeader, true);
    process.kill(pid, 'SIGCONT');
    const deadline = Date.now() + 10_000;
    while (!readFileSync(leaderLog, 'utf8').includes('lost the coordinator lease')) {
      if (Date.now() > deadline) throw new Error(`the continued leader did not notice: ${readFileSync(leaderLog, 'utf8')}`);
      await sleep(50);
    }
    assert.equal((await leaderLock(sb.home).owner())?.pid, process.pid, 'the lease stays with the window');
    const second = await c.start({ repo: sb.repo, command: ['true'] });
    assert.equal((await sb.waitEnded(second.id, 15_000)).lifecycle.state, 'completed');
    for (const id of [job.id, second.id]) {
      const starts = (await sb.store.readTimeline(id)).filter((e) => e.type === 'transition' && e.to === 'starting');
      assert.equal(starts.length, 1, `${id} started once`);
    }
  });

  it('keeps its lease when stopped only for a moment (a tracer, a debugger)', async () => {
    const pid = await suspendedLeader();
    const c = sb.coordinator({}, { tickMs: 100 });
    await c.ready;
    await sleep(1500);
    process.kill(pid, 'SIGCONT');
    await sleep(2500); // past LEASE_SUSPENDED_MS from the first look: running again, it is not taken over
    assert.equal(c.isLeader, false);
    assert.equal((await leaderLock(sb.home).owner())?.pid, pid);
  });

  it('paddock start runs its agent: the background coordinator it starts takes the lease over', async () => {
    await suspendedLeader();
    const started = await runCli(['start', '--repo', sb.repo, '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    const done = await sb.waitEnded(id, 20_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.ok(existsSync(join(sb.home, 'coordinator', 'background.log')));
  });
});
