/**
 * Bug 132: a leader suspended (SIGSTOP, a Ctrl-Z'd `paddock coordinate`) in the middle of launching
 * an agent kept that agent `starting`, and its capacity slot, for as long as it stayed stopped: the
 * follower took the lease over (bug 115) but never the half-done launch, whose operation lock the
 * stopped leader holds. Now the new leader gives the slot back once the launcher has stayed stopped
 * (the record is failed while no worker has claimed it; nothing is undone under the stopped one's
 * feet), the queue goes on, and the launcher, continued, starts nothing and removes nothing: the
 * worktree was shown as a failed agent's meanwhile (a person may have worked there), so it is left
 * to Clean Up, which captures what is in it first, and the record says so.
 * Bug 133: meanwhile `list`/`show` say the launcher is suspended. Real CLI processes and git.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProcStat } from '../../../../src/core/proc';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { CLI_SCRIPT, CoordinatorSandbox, git, runCli, sleep, useCoordinatorSandbox } from './coordinatorFixture';

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

  /** A first agent whose CLI leader is stopped inside its `worktree add`, failed by a second coordinator that ran the next one. */
  async function failedMidLaunch(): Promise<{ id: string; ran: string; pid: number }> {
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
    const pid = leader.pid!;
    process.kill(pid, 'SIGSTOP');
    while (readProcStat(pid)?.state !== 'T') await sleep(5);
    assert.equal((await sb.store.read(id)).lifecycle.state, 'starting');

    // Bug 133: shown as a launch at work no more, but as waiting on the stopped process holding its lock.
    const shown = JSON.parse((await runCli(['show', id, '--json'], { cwd: sb.repo, env: sb.env })).stdout);
    assert.equal(shown.suspended?.launcher, pid, JSON.stringify(shown.suspended));
    assert.equal(shown.suspended.words, `suspended (SIGSTOP): the process holding its lock, ${pid} — kill -CONT ${pid} resumes it`);

    const c = sb.coordinator({ maxConcurrent: 1 }, { tickMs: 100 });
    await c.ready;
    const second = await c.start({ repo: sb.repo, command: ['true'] });
    const done = await sb.waitEnded(second.id, 30_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const failed = await sb.store.read(id);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.equal(failed.lifecycle.detail, `the process launching it (pid ${pid}) was suspended (SIGSTOP) before its worker started; its slot was given back`);
    return { id, ran, pid };
  }

  it('gives the slot back to the queue; continued, the launcher starts nothing and removes nothing, leaving the worktree to Clean Up', async () => {
    const { id, ran, pid } = await failedMidLaunch();
    const wt = (await sb.store.read(id)).worktree!;
    process.kill(pid, 'SIGCONT');
    // Continued, it finishes its step: its worker's claim is refused; the worktree was shown as a failed agent's meanwhile, so it stays.
    const kept = await sb.waitFor(id, (j) => (lifecycleDetail(j) ?? '').includes('are kept'), 20_000);
    assert.equal(kept.lifecycle.state, 'failed');
    assert.match(lifecycleDetail(kept)!, /; its worktree and branch \S+ are kept, the agent was ended by another process while its launcher was stopped: paddock cleanup captures/);
    assert.equal(kept.worktree, wt);
    assert.ok(existsSync(wt), 'the worktree is kept');
    assert.ok(sb.branches().includes(kept.branch!), 'the branch is kept');
    assert.ok(!existsSync(ran), 'the agent never ran');
    assert.equal((await sb.store.readTimeline(id)).filter((e) => e.type === 'claimed').length, 0, 'no worker claimed it');
  });

  it('continued, the launcher keeps a worktree someone wrote and committed in while it was stopped', async () => {
    const { id, ran, pid } = await failedMidLaunch();
    // The failed agent's worktree is on the record: a person opens it and works there.
    const wt = (await sb.store.read(id)).worktree!;
    writeFileSync(join(wt, 'notes.txt'), 'committed work\n');
    git(wt, 'add', 'notes.txt');
    git(wt, '-c', 'user.email=p@example.com', '-c', 'user.name=P', 'commit', '-qm', 'person');
    const sha = git(wt, 'rev-parse', 'HEAD').trim();
    writeFileSync(join(wt, 'draft.txt'), 'not committed yet\n');
    process.kill(pid, 'SIGCONT');
    const kept = await sb.waitFor(id, (j) => (lifecycleDetail(j) ?? '').includes('are kept'), 20_000);
    assert.equal(kept.worktree, wt);
    assert.match(lifecycleDetail(kept)!, /its worktree and branch \S+ are kept, the agent was ended by another process while its launcher was stopped: paddock cleanup captures the work in them before it removes the worktree/);
    assert.equal(readFileSync(join(wt, 'draft.txt'), 'utf8'), 'not committed yet\n');
    assert.equal(git(sb.repo, 'rev-parse', `refs/heads/${kept.branch}`).trim(), sha);
    assert.ok((await sb.store.readTimeline(id)).some((e) => e.type === 'worktree-kept'));
    assert.ok(!existsSync(ran), 'the agent never ran');
  });
});
