import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { identityOf, readProcStat } from '../../../../src/core/proc/identity';
import { JobRecord, JobStore, LAUNCH_FAILED_DETAIL } from '../../../../src/core/store';
import { spawnWorker } from '../../../../src/core/worker/spawn';
import { exited, sampleJob, TestBed, useTestBed, waitForLine } from './helpers';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';

async function waitUntil(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The socket the worker of execution `generation` of agent `id` records (the only one its record may name). */
const socket = (id: string, generation: number) => ({ socketPath: socketPathFor(id, generation), socketToken: 'k'.repeat(24) });

describe('execution ownership', () => {
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((freshBed, freshStore) => {
    bed = freshBed;
    store = freshStore;
  });

  /** A running job whose owner record names `pid` with `startTime` (written as a worker would, then edited). */
  async function forgeOwner(pid: number, startTime: number): Promise<string> {
    const job = await store.create(sampleJob());
    const claim = await store.claimExecution(job.id, { generation: 1, ...socket(job.id, 1) });
    await store.transition(job.id, 'running', {}, { fence: claim.fence });
    await claim.release();
    const file = path.join(store.jobDir(job.id), 'job.json');
    const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    raw.execution.pid = pid;
    raw.execution.startTime = startTime;
    fs.writeFileSync(file, JSON.stringify(raw));
    return job.id;
  }

  async function runningUnderChild(): Promise<{ id: string; pid: number; child: ChildProcess }> {
    const job = await store.create(sampleJob());
    const child = bed.spawnFixture('claimer', [job.id, '1']);
    await waitForLine(child, /^claimed /);
    assert.equal((await store.read(job.id)).lifecycle.state, 'running');
    return { id: job.id, pid: child.pid!, child };
  }

  it('a SIGKILLed owner shows as orphaned at the very next list', async () => {
    const { id, pid, child } = await runningUnderChild();
    child.kill('SIGKILL');
    // Wait only until it is gone (reaped), not for any lock to go stale.
    await exited(child);
    const entry = (await store.list()).find((e) => e.id === id);
    assert.ok(entry?.ok);
    assert.equal(entry.job.lifecycle.state, 'orphaned');
    assert.match(entry.job.lifecycle.detail ?? '', new RegExp(`worker ${pid}`));
    assert.equal(entry.job.execution, null);
  });

  it('judges a zombie owner dead', async () => {
    // A parent that never reaps: its exited child stays a zombie while the parent sleeps.
    const parent = spawn('python3', ['-c', 'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid,flush=True)\ntime.sleep(60)'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const zombiePid = Number((await waitForLine(parent, /^\d+$/)).trim());
      await waitUntil(() => readProcStat(zombiePid)?.state === 'Z');
      const id = await forgeOwner(zombiePid, readProcStat(zombiePid)!.startTime);
      const job = await store.read(id);
      assert.equal(job.lifecycle.state, 'orphaned');
      assert.match(job.lifecycle.detail ?? '', /zombie/);
    } finally {
      parent.kill('SIGKILL');
      await exited(parent);
    }
  });

  it('judges an owner record with a live pid but another start time dead (pid reuse)', async () => {
    const me = identityOf(process.pid)!;
    const id = await forgeOwner(process.pid, me.startTime - 1);
    const read = await store.read(id);
    assert.equal(read.lifecycle.state, 'orphaned');
    assert.match(read.lifecycle.detail ?? '', /pid now belongs to another process/);
  });

  it('leaves a job whose owner is alive alone', async () => {
    const job = await store.create(sampleJob());
    const claim = await store.claimExecution(job.id, { generation: 1, ...socket(job.id, 1) });
    await assert.rejects(store.claimExecution(job.id, { generation: 1, ...socket(job.id, 1) }), /already run by worker/);
    await store.transition(job.id, 'running', {}, { fence: claim.fence });
    assert.equal((await store.read(job.id)).lifecycle.state, 'running');
    const [entry] = await store.list();
    assert.ok(entry.ok);
    assert.equal(entry.job.lifecycle.state, 'running');
    assert.equal(entry.job.execution?.pid, process.pid);
    await claim.release();
  });

  it('readers racing the reconcile (other processes and this one) make one transition and one timeline entry', async () => {
    const { id, child } = await runningUnderChild();
    child.kill('SIGKILL');
    await exited(child);
    const readers = Array.from({ length: 4 }, () => bed.spawnFixture('reader', [id]));
    const inProcess = Array.from({ length: 4 }, () => bed.store().read(id));
    const lines = await Promise.all(readers.map((r) => waitForLine(r, /^state /)));
    const jobs = await Promise.all(inProcess);
    await Promise.all(readers.map(exited));
    assert.deepEqual(new Set([...lines, ...jobs.map((j) => `state ${j.lifecycle.state}`)]), new Set(['state orphaned']));
    const orphanings = (await store.readTimeline(id)).filter((e) => e.to === 'orphaned');
    assert.equal(orphanings.length, 1);
    assert.equal(orphanings[0].type, 'owner-gone');
  });

  it('refuses every write fenced by an old owner after a retry, and a second live claimer', async () => {
    const { id, child } = await runningUnderChild();
    const oldFence = { ownerToken: (await store.read(id)).execution!.ownerToken, generation: 1 };
    await assert.rejects(store.claimExecution(id, { generation: 1, ...socket(id, 1) }), /is running; only a queued or starting agent can be claimed/);
    child.kill('SIGKILL');
    await exited(child);
    assert.equal((await store.read(id)).lifecycle.state, 'orphaned');
    await store.beginGeneration(id);
    await assert.rejects(store.claimExecution(id, { generation: 1, ...socket(id, 1) }), /stale/);
    // The dead owner's execution lock is still on disk: the new claim breaks it at once.
    assert.ok(fs.existsSync(path.join(store.jobDir(id), 'execution.lock')));
    const claim = await store.claimExecution(id, { generation: 2, ...socket(id, 2) });
    for (const write of [
      () => store.update(id, (j) => void (j.title = 'stale'), { fence: oldFence }),
      () => store.transition(id, 'running', {}, { fence: oldFence }),
      () => store.transition(id, 'running', {}, { fence: { ...claim.fence, generation: 1 } }),
      () => store.transition(id, 'running', {}, { fence: { ...claim.fence, ownerToken: oldFence.ownerToken } }),
    ]) {
      await assert.rejects(write(), /no longer owned/);
    }
    assert.equal((await store.transition(id, 'running', {}, { fence: claim.fence })).lifecycle.state, 'running');
    await claim.release();
    assert.equal(fs.existsSync(path.join(store.jobDir(id), 'execution.lock')), false);
  });

  it('an old claim released after a newer claim broke its lock leaves the new lock alone', async () => {
    const job = await store.create(sampleJob());
    const first = await store.claimExecution(job.id, { generation: 1, ...socket(job.id, 1) });
    await store.transition(job.id, 'failed', {}, { fence: first.fence });
    await store.beginGeneration(job.id);
    const second = await store.claimExecution(job.id, { generation: 2, ...socket(job.id, 2) });
    await first.release();
    assert.ok(fs.existsSync(path.join(store.jobDir(job.id), 'execution.lock')));
    await second.release();
    assert.equal(fs.existsSync(path.join(store.jobDir(job.id), 'execution.lock')), false);
  });

  describe('registration grace (spawned by spawnWorker, not yet claimed)', () => {
    const launchedPids: number[] = [];
    afterEach(() => {
      for (const pid of launchedPids.splice(0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });

    /** A starting job whose worker the real spawner launched (and recorded as `launch`); the worker never claims. */
    async function launched(opts: { exitAtOnce?: boolean } = {}): Promise<{ id: string; pid: number }> {
      const job = await store.create(sampleJob());
      await store.transition(job.id, 'starting');
      const { pid } = await spawnWorker({
        store,
        home: bed.home,
        jobId: job.id,
        generation: 1,
        workerScript: path.join(__dirname, 'fixtures', 'launchedWorker.js'),
        execPath: process.execPath,
        env: { ...process.env, LAUNCHED_WORKER_EXIT: opts.exitAtOnce ? '1' : '0' },
      });
      launchedPids.push(pid);
      return { id: job.id, pid };
    }

    async function readUntil(id: string, state: string, timeoutMs = 5000): Promise<JobRecord> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await store.read(id);
        if (job.lifecycle.state === state || Date.now() > deadline) return job;
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    it('keeps a starting job whose launched worker is alive', async () => {
      const { id, pid } = await launched();
      const job = await store.read(id);
      assert.equal(job.launch?.workerPid, pid);
      assert.equal(job.launch?.startTime, identityOf(pid)?.startTime);
      assert.equal(job.lifecycle.state, 'starting');
    });

    it('fails a starting job whose worker died before claiming', async () => {
      const { id, pid } = await launched();
      assert.equal((await store.read(id)).lifecycle.state, 'starting');
      process.kill(pid, 'SIGKILL');
      const job = await readUntil(id, 'failed');
      assert.equal(job.lifecycle.state, 'failed');
      assert.equal(job.lifecycle.detail, LAUNCH_FAILED_DETAIL);
      assert.equal(job.launch, null);
      assert.deepEqual((await store.readTimeline(id)).filter((e) => e.to === 'failed').map((e) => e.type), ['launch-failed']);
    });

    it('fails the job when its worker exits before it claims, even before its launch could be recorded', async () => {
      const { id } = await launched({ exitAtOnce: true });
      const job = await readUntil(id, 'failed');
      assert.equal(job.lifecycle.state, 'failed');
      assert.equal(job.lifecycle.detail, LAUNCH_FAILED_DETAIL);
    });

    it('a claim supersedes the launch', async () => {
      const { id } = await launched();
      const claim = await store.claimExecution(id, { generation: 1, ...socket(id, 1) });
      const job = await store.read(id);
      assert.equal(job.launch, null);
      assert.equal(job.execution?.ownerToken, claim.fence.ownerToken);
      await claim.release();
    });
  });
});
