/**
 * An agent that fills the store's disk, for real (a 1 MiB tmpfs over the store; mounting needs root,
 * so these skip otherwise). `paddock stop` must end it though nothing can be written (bug 141), and
 * the worker must go on, and keep serving, while its own log cannot be written (bug 142).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, statfsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { findByEnvMarker } from '../../src/core/proc';
import { join } from 'node:path';
import { WorkerClient } from '../../src/core/protocol/client';
import { Sandbox, sleep, waitUntil } from '../unit/core/worker/fixtures';
import { cliAsync, isAlive, isRoot } from './faultKit';
import { fillDisk, freeDisk } from '../unit/core/store/fullDisk';

function rmdirQuietly(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

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
    assert.equal(stopped.stdout, `Agent ${id} is cancelled.\n`);
    assert.equal(stopped.stderr, `Nothing could be written in the store (the disk is full), so agent ${id}'s record does not say it was stopped yet: the stop is kept in the runtime directory, and the record says it was stopped at the first read once the store can be written again.\n`);
    assert.ok(!isAlive(agentPid), 'the agent is stopped');
    await waitUntil('the worker to end', () => !isAlive(workerPid), 10_000);
    freeDisk(s.home);
    // Stopped, not crashed: an orphaned agent is one an automatic restart runs again.
    const after = await s.store.read(id);
    assert.equal(after.lifecycle.state, 'cancelled', after.lifecycle.detail ?? '');
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
    assert.equal(stopped.stdout, `Agent ${job.id} is cancelled.\n`);
    assert.match(stopped.stderr, /^Nothing could be written in the store \(the file system is read-only\), so agent/);
    assert.ok(tookMs < 10_000, `the stop took ${tookMs} ms`);
    assert.ok(!isAlive(rec.lifecycle.pid!), 'the agent is stopped');
    execFileSync('umount', ['-l', s.home]);
    bindMounted = false;
    const after = await s.store.read(job.id);
    assert.equal(after.lifecycle.state, 'cancelled', 'said by the first read that can write it');
    assert.match(after.lifecycle.detail ?? '', /^stopped by paddock stop while the store could not be written \(worker \d+ is gone\)$/);
    // Written, not just judged: the record file says it.
    assert.match(readFileSync(join(s.store.jobDir(job.id), 'job.json'), 'utf8'), /"state": "cancelled"/);
  });

  /** A read-only bind mount over the store (as in diskFull.test.ts): every new open, mkdir or rename fails with EROFS. */
  async function readOnly(s: Sandbox): Promise<void> {
    execFileSync('mount', ['--bind', s.home, s.home]);
    bindMounted = true;
    for (let attempt = 0; ; attempt++) {
      try {
        execFileSync('mount', ['-o', 'remount,bind,ro', s.home], { stdio: 'pipe' });
        return;
      } catch (err) {
        if (attempt >= 200) throw err;
        await sleep(10);
      }
    }
  }

  /** What a process killed while it held the agent's operation lock leaves (its pid now gone). */
  function staleOperationLock(home: string, id: string): void {
    const ops = join(home, 'coordinator', 'ops');
    mkdirSync(ops, { recursive: true, mode: 0o700 });
    const dead = spawnSync('true').pid!;
    const token = 'deadbeefdeadbeefdeadbeefdeadbeef';
    const held = `${id}.lock.${token}.held`;
    mkdirSync(join(ops, held), { mode: 0o700 });
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    writeFileSync(join(ops, held, 'owner.json'), JSON.stringify({ pid: dead, startTime: 1, bootId, token, purpose: `operation on ${id}`, since: new Date().toISOString() }));
    symlinkSync(held, join(ops, `${id}.lock`));
  }

  // Full with its inodes used up too, as an ext4 fills: the takeover guard cannot be made, and the worker's own writes wait for space.
  for (const how of ['read-only', 'full'] as const) {
    it(`on a ${how} store, paddock stop ends the agent though a dead process left its operation lock (bug 141)`, async () => {
      const s = new Sandbox();
      sb = s;
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,nr_inodes=200,mode=0700', 'tmpfs', s.home]);
      mounted = true;
      mkdirSync(join(s.home, 'jobs'), { mode: 0o700 });
      const job = await s.start(['sh', '-c', 'exec sleep 1000'], { waitFor: ['running'] });
      const rec = await s.store.read(job.id);
      staleOperationLock(s.home, job.id);
      if (how === 'read-only') await readOnly(s);
      else {
        fillDisk(s.home);
        for (let n = 0; ; n++) {
          try {
            mkdirSync(join(s.home, `d${n}`));
          } catch {
            break; // no inode left: the takeover guard cannot be made either
          }
        }
      }
      const began = Date.now();
      const stopped = await cliAsync(['stop', job.id], { ...s.env, HOME: s.cwd });
      assert.equal(stopped.code, 0, `paddock stop → ${stopped.code}: ${stopped.stderr}`);
      assert.equal(stopped.stdout, `Agent ${job.id} is cancelled.\n`);
      assert.match(stopped.stderr, /^Nothing could be written in the store/);
      assert.ok(Date.now() - began < 15_000, `the stop took ${Date.now() - began} ms`);
      assert.ok(!isAlive(rec.lifecycle.pid!), 'the agent is stopped');
      // Writable again: the stop is recorded (by the worker, or from its request by a reader), never a crash.
      if (how === 'read-only') {
        execFileSync('umount', ['-l', s.home]);
        bindMounted = false;
      } else {
        freeDisk(s.home);
        for (let n = 0; rmdirQuietly(join(s.home, `d${n}`)); n++);
      }
      await waitUntil('the worker to end', () => !isAlive(rec.execution!.pid), 60_000);
      assert.equal((await s.store.read(job.id)).lifecycle.state, 'cancelled');
    });
  }

  it('on a read-only store, paddock stop ends what an agent whose worker was killed left running (bug 141)', async () => {
    const s = new Sandbox();
    sb = s;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    mkdirSync(join(s.home, 'jobs'), { mode: 0o700 });
    const job = await s.start(['sh', '-c', 'setsid sleep 600 & exec sleep 601'], { waitFor: ['running'] });
    const rec = await s.store.read(job.id);
    let escaped: number | undefined;
    await waitUntil('the escaped process', () => (escaped = findByEnvMarker('PADDOCK_JOB_ID', job.id).find((p) => p.pid !== rec.lifecycle.pid && p.comm === 'sleep')?.pid) !== undefined, 5000);
    await readOnly(s);
    process.kill(rec.execution!.pid, 'SIGKILL');
    await waitUntil('the worker to end', () => !isAlive(rec.execution!.pid), 5000);
    // Its timeline note, the leftovers' note: nothing can take them, and the processes end all the same.
    const stopped = await cliAsync(['stop', job.id], { ...s.env, HOME: s.cwd });
    assert.equal(stopped.code, 0, `paddock stop → ${stopped.code}: ${stopped.stderr}`);
    assert.ok(!isAlive(escaped!), 'what it left running is stopped');
    assert.ok(!isAlive(rec.lifecycle.pid!), 'the agent is stopped');
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

  it('a stop on a full disk whose worker was killed ends the agent in seconds and keeps the stop (bug 141, second review)', async function () {
    this.timeout(90_000);
    const s = new Sandbox();
    sb = s;
    // Few inodes as well: not even a lock folder can be made.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,nr_inodes=200,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    mkdirSync(join(s.home, 'jobs'), { mode: 0o700 });
    const job = await s.start(['sh', '-c', 'setsid sleep 600 & exec sleep 601'], { waitFor: ['running'] });
    const rec = await s.store.readStored(job.id);
    fillDisk(s.home);
    const dirs: string[] = [];
    for (let n = 0; ; n++) {
      try {
        mkdirSync(join(s.home, `d${n}`));
        dirs.push(join(s.home, `d${n}`));
      } catch {
        break;
      }
    }
    process.kill(rec.execution!.pid, 'SIGKILL');
    await waitUntil('the worker gone', () => !isAlive(rec.execution!.pid), 5000);
    const request = `${rec.execution!.socketPath}.stop`;
    for (const [n, said] of [
      [1, 'the stop is kept in the runtime directory'],
      [2, 'an earlier stop is kept in the runtime directory'],
    ] as const) {
      const began = Date.now();
      const stopped = await cliAsync(['stop', job.id], { ...s.env, HOME: s.cwd });
      const tookMs = Date.now() - began;
      assert.equal(stopped.code, 0, `stop ${n}: ${stopped.stderr}`);
      // Each read once waited the record lock's 20 s to record the gone worker: 143 s, saying nothing.
      assert.ok(tookMs < 15_000, `stop ${n} took ${tookMs} ms`);
      assert.ok(stopped.stderr.includes(`so agent ${job.id}'s record does not say it was stopped yet: ${said}, and the record says`), `stop ${n}: ${stopped.stderr}`);
      assert.ok(existsSync(request), `stop ${n}: the request is kept`);
    }
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'the agent and its escapee are ended');
    for (const dir of dirs) rmdirSync(dir);
    freeDisk(s.home);
    const after = await s.store.read(job.id);
    assert.equal(after.lifecycle.state, 'cancelled', after.lifecycle.detail ?? '');
    assert.ok(!existsSync(request), 'recorded: the request is done with');
  });

  it('a stop on a full disk, its worker alive, ends the agent and what escaped its session (bug 141, second review)', async function () {
    this.timeout(90_000);
    const s = new Sandbox();
    sb = s;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,nr_inodes=200,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    mkdirSync(join(s.home, 'jobs'), { mode: 0o700 });
    const job = await s.start(['sh', '-c', 'setsid sleep 600 & exec sleep 601'], { waitFor: ['running'] });
    const rec = await s.store.readStored(job.id);
    fillDisk(s.home);
    const dirs: string[] = [];
    for (let n = 0; ; n++) {
      try {
        mkdirSync(join(s.home, `d${n}`));
        dirs.push(join(s.home, `d${n}`));
      } catch {
        break;
      }
    }
    const began = Date.now();
    const stopped = await cliAsync(['stop', job.id], { ...s.env, HOME: s.cwd });
    const tookMs = Date.now() - began;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.ok(tookMs < 15_000, `the stop took ${tookMs} ms`);
    assert.ok(!isAlive(rec.lifecycle.pid!), 'the agent is stopped');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'its escapee too');
    for (const dir of dirs) rmdirSync(dir);
    freeDisk(s.home);
    await waitUntil('the worker to end', () => !isAlive(rec.execution!.pid), 60_000);
    assert.equal((await s.store.read(job.id)).lifecycle.state, 'cancelled');
  });
});
