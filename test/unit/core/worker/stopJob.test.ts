import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarker, readProcStat } from '../../../../src/core/proc';
import { JobStore } from '../../../../src/core/store';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { stopJob } from '../../../../src/core/worker/stopJob';
import { Sandbox, sleep, waitUntil } from './fixtures';

describe('stopping an agent', function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.dispose());

  const alive = (id: string) => findByEnvMarker('PADDOCK_JOB_ID', id);

  it('kills an agent that ignores SIGTERM after the grace and records the escalation', async () => {
    const job = await sb.start(['sh', '-c', "trap '' TERM HUP; echo armed; while :; do sleep 0.1; done"], { settings: { stopGraceMs: 500 } });
    await waitUntil('armed', async () => (await sb.store.readOutput(job.id)).toString().includes('armed'));
    const result = await stopJob(sb.store, job.id);
    assert.equal(result.state, 'cancelled');
    assert.equal(result.via, 'worker');
    assert.equal(result.escalated, true);
    assert.deepEqual(result.survivors, []);
    assert.deepEqual(alive(job.id), []);
    const timeline = await sb.store.readTimeline(job.id);
    assert.ok(timeline.some((e) => e.type === 'stop-escalated'), 'the escalation is on the timeline');
    assert.ok(timeline.some((e) => e.to === 'cancelling') && timeline.some((e) => e.to === 'cancelled'));
  });

  it('finds and kills setsid and nohup children', async () => {
    const job = await sb.start(['sh', '-c', 'setsid sleep 600 & nohup sleep 601 >/dev/null 2>&1 & echo spawned; wait'], { settings: { stopGraceMs: 2000 } });
    await waitUntil('children', () => alive(job.id).filter((p) => p.comm === 'sleep').length === 2);
    const escaped = alive(job.id).find((p) => p.comm === 'sleep' && p.sid === p.pid);
    assert.ok(escaped, 'one child runs in its own session');
    const result = await stopJob(sb.store, job.id);
    assert.equal(result.state, 'cancelled');
    assert.deepEqual(result.survivors, []);
    assert.deepEqual(alive(job.id), []);
    assert.ok(['gone', 'Z'].includes(readProcStat(escaped.pid)?.state ?? 'gone'), 'the escaped child is dead');
  });

  it('acknowledges the stop only after `cancelled` is on disk', async () => {
    const job = await sb.start(['sleep', '600']);
    const client = await WorkerClient.connect(sb.store, job.id);
    try {
      await client.hello();
      const result = await client.stop({ force: false, timeoutMs: 20_000 });
      // A separate store instance reads the file as it is now.
      const onDisk = await new JobStore({ home: sb.home }).read(job.id);
      assert.equal(result.state, 'cancelled');
      assert.equal(onDisk.lifecycle.state, 'cancelled');
    } finally {
      client.dispose();
    }
  });

  it('force stops at once', async () => {
    const job = await sb.start(['sh', '-c', "trap '' TERM; while :; do sleep 0.1; done"], { settings: { stopGraceMs: 600_000 } });
    const result = await stopJob(sb.store, job.id, { force: true });
    assert.equal(result.state, 'cancelled');
    assert.deepEqual(alive(job.id), []);
  });

  it('force stops an agent whose worker is frozen (SIGSTOP): both killed, recorded cancelled', async () => {
    const job = await sb.start(['sh', '-c', 'setsid sleep 600 & sleep 601'], { settings: { stopGraceMs: 600_000 } });
    await waitUntil('children', () => alive(job.id).filter((p) => p.comm === 'sleep').length === 2);
    const worker = (await sb.store.read(job.id)).execution!;
    process.kill(worker.pid, 'SIGSTOP');
    await waitUntil('frozen', () => readProcStat(worker.pid)?.state === 'T');
    try {
      const began = Date.now();
      const result = await stopJob(sb.store, job.id, { force: true });
      assert.ok(Date.now() - began < 8000, `took ${Date.now() - began} ms`);
      assert.equal(result.state, 'cancelled');
      assert.deepEqual(result.survivors, []);
      assert.deepEqual(alive(job.id), []);
      assert.ok(['gone', 'Z'].includes(readProcStat(worker.pid)?.state ?? 'gone'), 'the frozen worker is dead');
      const record = await sb.store.read(job.id);
      assert.equal(record.lifecycle.state, 'cancelled');
      assert.match(record.lifecycle.detail ?? '', /--force/);
      assert.equal(record.execution, null);
    } finally {
      try {
        process.kill(worker.pid, 'SIGCONT');
      } catch {
        // killed, as it should be
      }
    }
  });

  it('without --force, a frozen worker gives a clear error at once that suggests --force', async () => {
    const job = await sb.start(['sleep', '600']);
    const worker = (await sb.store.read(job.id)).execution!;
    process.kill(worker.pid, 'SIGSTOP');
    await waitUntil('frozen', () => readProcStat(worker.pid)?.state === 'T');
    try {
      const began = Date.now();
      await assert.rejects(stopJob(sb.store, job.id), /is stopped \(SIGSTOP\).*paddock stop .* --force/);
      assert.ok(Date.now() - began < 3000, `took ${Date.now() - began} ms`);
      assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    } finally {
      process.kill(worker.pid, 'SIGCONT');
    }
    // Continued, the worker stops its agent the normal way.
    assert.equal((await stopJob(sb.store, job.id)).state, 'cancelled');
  });

  it('a forced stop records nothing over a generation a retry started meanwhile', async () => {
    const job = await sb.start(['sleep', '600']);
    const worker = (await sb.store.read(job.id)).execution!;
    await assert.rejects(
      sb.store.endForUnresponsiveWorker(job.id, { generation: 1, pid: worker.pid, startTime: worker.startTime, ownerToken: 'someone-else' }, async () => undefined, 'x'),
      /changed while it was being stopped/,
    );
    await assert.rejects(
      sb.store.endForUnresponsiveWorker(job.id, { generation: 1, pid: worker.pid, startTime: worker.startTime, ownerToken: worker.ownerToken }, async () => undefined, 'x'),
      /still running; nothing was recorded/,
    );
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
  });

  it('SIGTERM to the worker stops the agent the same way', async () => {
    const job = await sb.start(['sleep', '600']);
    const workerPid = (await sb.store.read(job.id)).execution!.pid;
    process.kill(workerPid, 'SIGTERM');
    const done = await sb.waitForState(job.id, ['cancelled']);
    assert.equal(done.lifecycle.state, 'cancelled');
    assert.deepEqual(alive(job.id), []);
  });

  it('stop while the worker is still starting (claimed, socket not open yet): SIGTERM to it stops the agent once it runs', async () => {
    // A slow machine, made reproducible: the real worker, whose control socket opens 4 s late.
    const preload = join(sb.cwd, 'slow-listen.js');
    writeFileSync(preload, `const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) { setTimeout(() => listen.apply(this, args), 4000); return this; };
`);
    const slow = new Sandbox({ NODE_OPTIONS: `--require ${preload}` });
    try {
      const job = await slow.start(['sleep', '600'], { waitFor: ['starting', 'running'] });
      const claimed = await slow.waitForState(job.id, ['starting', 'running']);
      await waitUntil('the worker to claim the job', async () => (await slow.store.read(job.id)).execution !== null);
      const { socketPath, pid: workerPid } = (await slow.store.read(job.id)).execution!;
      assert.equal(claimed.lifecycle.state === 'starting' || claimed.lifecycle.state === 'running', true);
      assert.equal(existsSync(socketPath), false, 'the socket is not open yet: the stop cannot go through it');
      const result = await stopJob(slow.store, job.id, { connectTimeoutMs: 500 });
      assert.equal(result.via, 'worker', 'stopped through the signalled worker, not the socket or directly');
      assert.equal(result.state, 'cancelled');
      const done = await slow.store.read(job.id);
      assert.equal(done.lifecycle.state, 'cancelled');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'nothing of the agent is left');
      await slow.waitForWorkerExit(workerPid);
    } finally {
      slow.dispose();
    }
  });

  it('after the worker is SIGKILLed, the job reads orphaned and stop cleans up its processes', async () => {
    const job = await sb.start(['sh', '-c', 'setsid sleep 600 & nohup sleep 601 >/dev/null 2>&1 & sleep 602'], { settings: { stopGraceMs: 1000 } });
    await waitUntil('children', () => alive(job.id).filter((p) => p.comm === 'sleep').length === 3);
    const workerPid = (await sb.store.read(job.id)).execution!.pid;
    process.kill(workerPid, 'SIGKILL');
    await waitUntil('worker gone', () => !readProcStat(workerPid) || readProcStat(workerPid)?.state === 'Z');
    const orphaned = await sb.store.read(job.id);
    assert.equal(orphaned.lifecycle.state, 'orphaned');
    await sleep(100);
    assert.ok(alive(job.id).length > 0, 'the setsid/nohup children survived the worker');
    const result = await stopJob(sb.store, job.id);
    assert.equal(result.via, 'direct');
    assert.equal(result.state, 'orphaned');
    assert.deepEqual(result.survivors, []);
    assert.deepEqual(alive(job.id), []);
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'orphaned');
  });
});
