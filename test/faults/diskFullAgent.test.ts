/**
 * An agent that fills the store's disk, for real (a 1 MiB tmpfs over the store; mounting needs root,
 * so these skip otherwise). `paddock stop` must end it though nothing can be written (bug 141), and
 * the worker must go on, and keep serving, while its own log cannot be written (bug 142).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../src/core/protocol/client';
import { Sandbox, sleep, waitUntil } from '../unit/core/worker/fixtures';
import { cliAsync, isAlive, isRoot } from './faultKit';
import { freeDisk } from '../unit/core/store/fullDisk';

/** CPU time (utime + stime, clock ticks) process `pid` has used so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('faults: an agent that fills the store’s disk (bugs 141, 142)', function () {
  this.timeout(120_000);
  let sb: Sandbox | undefined;
  let mounted = false;
  let bindMounted = false;

  beforeEach(function () {
    if (!isRoot()) this.skip(); // mounting a tmpfs needs root
  });
  afterEach(() => {
    if (sb) {
      try {
        sb.dispose();
      } catch {
        // the folders are removed after unmounting
      }
    }
    if (bindMounted && sb) execFileSync('umount', ['-l', sb.home]);
    bindMounted = false;
    if (mounted && sb) execFileSync('umount', ['-l', sb.home]);
    mounted = false;
    if (sb) rmSync(sb.home, { recursive: true, force: true });
    sb = undefined;
  });

  /** A running agent, on a 1 MiB store, that writes into the store until its disk is full, then sleeps. */
  async function agentFillingTheDisk(): Promise<{ s: Sandbox; id: string; workerPid: number; agentPid: number }> {
    const s = new Sandbox();
    sb = s;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    mkdirSync(join(s.home, 'jobs'), { mode: 0o700 });
    const fill = join(s.home, 'filler');
    const go = join(s.cwd, 'go');
    // It fills the disk once it is recorded running (told by the file `go`).
    const script = `while [ ! -e '${go}' ]; do sleep 0.05; done; echo filling; head -c 4194304 /dev/zero > '${fill}'; echo full; exec sleep 1000`;
    const job = await s.start(['sh', '-c', script], { waitFor: ['running'] });
    // The worker's log ends at a page's end: its next line needs a page of its own, which a full tmpfs refuses.
    const log = join(s.store.jobDir(job.id), 'worker.log');
    appendFileSync(log, '\n'.padStart(4096 - (statSync(log).size % 4096), '.'));
    writeFileSync(go, '');
    await waitUntil('the disk to be full', () => statfsSync(s.home).bavail === 0, 10_000);
    const rec = await s.store.read(job.id);
    return { s, id: job.id, workerPid: rec.execution!.pid, agentPid: rec.lifecycle.pid! };
  }

  it('paddock stop ends an agent that filled the disk; the record says so once space is back (bug 141)', async () => {
    const { s, id, workerPid, agentPid } = await agentFillingTheDisk();
    const stopped = await cliAsync(['stop', id], { ...s.env, HOME: s.cwd });
    assert.doesNotMatch(stopped.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(stopped.code, 0, `paddock stop on a full disk → ${stopped.code}: ${stopped.stderr}`);
    assert.match(stopped.stdout, new RegExp(`^Agent ${id} is (cancelled|orphaned)\\.\\n$`));
    assert.equal(stopped.stderr, `Nothing could be written in the store (no space is left on its disk), so agent ${id}'s record may not say it was stopped until the store can be written again.\n`);
    assert.ok(!isAlive(agentPid), 'the agent is stopped');
    await waitUntil('the worker to end', () => !isAlive(workerPid), 10_000);
    freeDisk(s.home);
    const after = await s.store.read(id);
    assert.ok(['cancelled', 'orphaned'].includes(after.lifecycle.state), after.lifecycle.state);
    const listed = await cliAsync(['list', '--json'], { ...s.env, HOME: s.cwd });
    assert.equal(listed.code, 0, listed.stderr);
  });

  it('on a read-only store, paddock stop ends a running agent at once (bug 141)', async () => {
    const s = new Sandbox();
    sb = s;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    mkdirSync(join(s.home, 'jobs'), { mode: 0o700 });
    const job = await s.start(['sh', '-c', 'exec sleep 1000'], { waitFor: ['running'] });
    const rec = await s.store.read(job.id);
    // A read-only bind mount on top (as in diskFull.test.ts): every new open, mkdir or rename fails with EROFS.
    execFileSync('mount', ['--bind', s.home, s.home]);
    bindMounted = true;
    for (let attempt = 0; ; attempt++) {
      try {
        execFileSync('mount', ['-o', 'remount,bind,ro', s.home], { stdio: 'pipe' });
        break;
      } catch (err) {
        if (attempt >= 200) throw err;
        await sleep(10);
      }
    }
    const began = Date.now();
    const stopped = await cliAsync(['stop', job.id], { ...s.env, HOME: s.cwd });
    const tookMs = Date.now() - began;
    assert.equal(stopped.code, 0, `paddock stop on a read-only store → ${stopped.code}: ${stopped.stderr}`);
    assert.equal(stopped.stdout, `Agent ${job.id} is orphaned.\n`);
    assert.match(stopped.stderr, /^Nothing could be written in the store \(its file system is read-only\), so agent/);
    assert.ok(tookMs < 10_000, `the stop took ${tookMs} ms`);
    assert.ok(!isAlive(rec.lifecycle.pid!), 'the agent is stopped');
    execFileSync('umount', ['-l', s.home]);
    bindMounted = false;
    assert.equal((await s.store.read(job.id)).lifecycle.state, 'orphaned', 'said by the first read that can write it');
  });

  it('the worker goes on, and serves, while its log cannot be written, and logs again once it can (bug 142)', async () => {
    const { s, id, workerPid } = await agentFillingTheDisk();
    const log = join(s.store.jobDir(id), 'worker.log');
    // SIGHUP makes the worker write a line to its log (it ignores the signal itself).
    process.kill(workerPid, 'SIGHUP');
    await sleep(300);
    const before = cpuTicks(workerPid);
    await sleep(1000);
    const used = cpuTicks(workerPid) - before;
    assert.ok(used < 15, `the worker used ${used} ticks of CPU in a second after a line it could not log`);
    const viewer = await WorkerClient.connect(s.store, id, { connectTimeoutMs: 3000, requestTimeoutMs: 3000 });
    try {
      await viewer.hello();
    } finally {
      viewer.dispose();
    }
    freeDisk(s.home);
    process.kill(workerPid, 'SIGHUP');
    await waitUntil('a line in the log once space is back', () => /ignoring SIGHUP\n$/.test(readFileSync(log, 'utf8')), 5000);
    assert.ok(isAlive(workerPid));
  });
});
