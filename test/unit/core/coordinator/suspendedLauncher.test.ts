/**
 * Bug 132: a leader suspended (SIGSTOP, a Ctrl-Z'd `paddock coordinate`) in the middle of launching
 * an agent kept that agent `starting`, and its capacity slot, for as long as it stayed stopped: the
 * follower took the lease over (bug 115) but never the half-done launch, whose operation lock the
 * stopped leader holds. Now the new leader gives the slot back once the launcher has stayed stopped
 * (the record is failed while no worker has claimed it; nothing is undone under the stopped one's
 * feet), the queue goes on, and the launcher, continued, starts nothing and undoes its worktree.
 * Bug 133: meanwhile `list`/`show` say the launcher is suspended. Real CLI processes and git.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProcStat } from '../../../../src/core/proc';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('a leader suspended in the middle of a launch (bug 132)', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  let leader: ChildProcess | undefined;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  afterEach(() => {
    for (const sig of ['SIGKILL', 'SIGCONT'] as const) {
      try {
        if (leader?.pid !== undefined) process.kill(leader.pid, sig);
      } catch {
        // gone
      }
    }
    leader = undefined;
  });

  it('gives the slot back to the queue; continued, the launcher starts nothing and undoes its worktree', async () => {
    // One slot, so the half-launched agent's is the only one.
    writeFileSync(join(sb.home, 'policy.json'), JSON.stringify({ maxConcurrent: 1 }));
    // The first worktree's checkout runs a hook that says it runs and takes a while: the launch is then inside `worktree add`.
    const inHook = join(sb.root, 'in-hook');
    const hook = join(sb.repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\nif [ ! -e '${inHook}' ]; then touch '${inHook}'; sleep 2; fi\nexit 0\n`);
    chmodSync(hook, 0o755);
    const fd = openSync(join(sb.home, 'leader.log'), 'a');
    leader = spawn(process.execPath, [CLI_SCRIPT, 'coordinate'], { env: sb.env, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    const deadline = Date.now() + 15_000;
    while ((await leaderLock(sb.home).owner())?.pid !== leader.pid) {
      if (Date.now() > deadline) throw new Error('the CLI coordinator never took the lease');
      await sleep(25);
    }
    const ran = join(sb.root, 'first-ran');
    const first = await runCli(['start', '--', 'sh', '-c', `touch '${ran}'`], { cwd: sb.repo, env: sb.env });
    assert.equal(first.code, 0, first.stderr);
    const id = first.stdout.trim();
    while (!existsSync(inHook)) await sleep(5);
    process.kill(leader.pid!, 'SIGSTOP');
    while (readProcStat(leader.pid!)?.state !== 'T') await sleep(5);
    assert.equal((await sb.store.read(id)).lifecycle.state, 'starting');

    // Bug 133: shown as a launch at work no more, but as waiting on its stopped launcher.
    const shown = JSON.parse((await runCli(['show', id, '--json'], { cwd: sb.repo, env: sb.env })).stdout);
    assert.equal(shown.suspended?.launcher, leader.pid, JSON.stringify(shown.suspended));
    assert.equal(shown.suspended.words, `suspended (SIGSTOP): launcher ${leader.pid} — kill -CONT ${leader.pid} resumes it`);

    const c = sb.coordinator({ maxConcurrent: 1 }, { tickMs: 100 });
    await c.ready;
    const second = await c.start({ repo: sb.repo, command: ['true'] });
    const done = await sb.waitEnded(second.id, 30_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const failed = await sb.store.read(id);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.equal(failed.lifecycle.detail, `the process launching it (pid ${leader.pid}) was suspended (SIGSTOP) before its worker started; its slot was given back`);

    process.kill(leader.pid!, 'SIGCONT');
    // Continued, it finishes its step: its worker's claim is refused, and it undoes the worktree nothing ran in.
    const undone = await sb.waitFor(id, (j) => j.worktree === null, 20_000);
    assert.equal(undone.lifecycle.state, 'failed');
    assert.ok(!existsSync(join(`${sb.repo}.worktrees`, id)), 'the worktree is removed');
    assert.ok(!existsSync(ran), 'the agent never ran');
    assert.equal((await sb.store.readTimeline(id)).filter((e) => e.type === 'claimed').length, 0, 'no worker claimed it');
  });
});
