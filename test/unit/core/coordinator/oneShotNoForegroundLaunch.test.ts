/**
 * Bug 220, its review: the first fix awaited the pump of a CLI operation that freed a slot, in the
 * command's foreground. A `paddock stop` then waited for other agents' whole launches (a worktree
 * checkout, copies, the worker's start), printing nothing, and a Ctrl-C in that wait killed the CLI
 * mid-launch and failed the other agent; a Ctrl-C of `paddock start --attempts 2` launched the queued
 * attempt as its first attempt was stopped. Now the CLI launches nothing in a stop's foreground (the
 * background coordinator does, in a session of its own), and an interrupted start stops its queued
 * attempts first. Real CLI (`dist/cli.js`), store, locks, workers and agents.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('a CLI operation that frees a slot launches nothing in its foreground (bug 220, its review)', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  it('Ctrl-C of `start --attempts 2` with one slot: the queued attempt is cancelled, never launched', async () => {
    sb.store.policy.write({ maxConcurrent: 1 });
    const ran = join(sb.root, 'ran.txt');
    const child = spawn(process.execPath, [CLI_SCRIPT, 'start', '--attempts', '2', '--', 'sh', '-c', `echo $PADDOCK_JOB_ID >> ${ran}; sleep 60`], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const jobs = join(sb.home, 'jobs');
    const recorded = () => (existsSync(jobs) ? readdirSync(jobs).filter((id) => existsSync(join(jobs, id, 'job.json'))) : []);
    while (recorded().length < 2) await sleep(2);
    child.kill('SIGINT');
    assert.equal(await closed, 130, stderr);
    const ids = recorded();
    const states = await Promise.all(ids.map(async (id) => (await sb.store.read(id)).lifecycle.state));
    await sleep(1000); // a launch the stop set off would have written its agent's line by now
    const agents = existsSync(ran) ? readFileSync(ran, 'utf8').trim().split('\n') : [];
    assert.ok(agents.length <= 1, `agents that ran: ${agents.join(', ')}; states ${states.join(', ')}\n${stderr}`);
    assert.ok(states.includes('cancelled'), `states ${states.join(', ')}`);
    for (const state of states) assert.ok(['cancelled', 'stopped', 'failed'].includes(state), `states ${states.join(', ')}`);
  });

  it("`stop A` returns before B's slow launch ends, and a Ctrl-C of it does not fail B", async () => {
    sb.store.policy.write({ maxConcurrent: 1 });
    const first = await cli(['start', '--title', 'A', '--', 'sh', '-c', 'sleep 60']);
    assert.equal(first.code, 0, first.stderr);
    // A's start still leading (held here for it): B is queued, left to A's process, no background coordinator.
    const lease = await leaderLock(sb.home).tryAcquire();
    assert.ok(lease);
    const second = await cli(['start', '--title', 'B', '--', 'sh', '-c', 'sleep 60']);
    assert.equal(second.code, 0, second.stderr);
    await lease.release();
    const b = second.stdout.trim();
    assert.equal((await sb.store.read(b)).lifecycle.state, 'queued');
    // B's checkout is slow (a post-checkout hook, as LFS or a big checkout would be).
    const hook = join(sb.repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, '#!/bin/sh\nsleep 6\n');
    chmodSync(hook, 0o755);

    const t0 = Date.now();
    const stop = spawn(process.execPath, [CLI_SCRIPT, 'stop', '--force', first.stdout.trim()], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    stop.stdout.on('data', (d) => (out += d));
    stop.stderr.on('data', (d) => (out += d));
    let exited = false;
    const closed = new Promise<number | null>((resolve) => stop.once('close', (code) => ((exited = true), resolve(code))));
    // The person's Ctrl-C 2 s in, if it still runs then (the terminal's interrupt reaches the foreground command only).
    await Promise.race([closed, sleep(2000)]);
    if (!exited) stop.kill('SIGINT');
    const code = await closed;
    const took = Date.now() - t0;
    assert.ok(took < 2000, `the stop took ${took} ms (B's launch waited for); exit ${code}: ${out}`);
    assert.equal(code, 0, out);
    assert.match(out, /^Agent \S+ is /m);
    const launched = await sb.waitFor(b, (j) => j.lifecycle.state !== 'queued' && j.lifecycle.state !== 'starting', 30_000);
    assert.equal(launched.lifecycle.state, 'running', launched.lifecycle.detail ?? '');
    assert.equal((await cli(['stop', '--force', b])).code, 0);
  });
});
