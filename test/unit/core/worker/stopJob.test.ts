import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarker, readProcStat, sessionMembers } from '../../../../src/core/proc';
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

  it('a stop of one generation leaves another alone: a retry started while a lockless stop ran is not its to end (bug 141)', async () => {
    const job = await sb.start(['sh', '-c', 'exec sleep 600'], { waitFor: ['running'] });
    const rec = await sb.store.read(job.id);
    // As a stop without the operation lock sees it when a retry took generation 2 meanwhile.
    const result = await stopJob(sb.store, job.id, { generation: rec.lifecycle.generation - 1, bestEffortNotes: true });
    assert.equal(result.via, 'none');
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    assert.ok(readProcStat(rec.lifecycle.pid!) !== undefined, 'the agent runs on');
    await stopJob(sb.store, job.id);
  });

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

  it('stop while the worker is still starting (launched, not yet claimed, no socket): SIGTERM to it stops the agent once it runs', async () => {
    // A slow start, made reproducible: the job's record is locked (as by a long write) while its
    // worker starts, so the worker waits to claim it and cannot open its socket.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held: Promise<unknown> | undefined;
    const job = await sb.start(['sleep', '600'], {
      waitFor: ['starting'],
      beforeSpawn: async (j) => {
        await sb.store.transition(j.id, 'starting');
      },
    });
    try {
      held = sb.store.update(job.id, async (j) => {
        await gate;
        return j;
      }).catch(() => undefined);
      const launched = (await sb.store.read(job.id)).launch!;
      // The worker is up to its claim once its main has set its handlers (SIGHUP, then SIGTERM in the
      // same synchronous run; Node catches SIGTERM from the start, SIGHUP only when asked). Before that,
      // SIGTERM would just kill it.
      await waitUntil('the worker to install its signal handlers', () => catchesSighup(launched.workerPid));
      const starting = await sb.store.read(job.id);
      assert.deepEqual([starting.lifecycle.state, starting.execution], ['starting', null], 'launched, not claimed: no socket to stop it through');
      let stopError: unknown;
      const stopping = stopJob(sb.store, job.id, { connectTimeoutMs: 300 }).catch((err) => {
        stopError = err;
        throw err;
      });
      stopping.catch(() => undefined);
      const log = join(sb.home, 'jobs', job.id, 'worker.log');
      const told = () => existsSync(log) && readFileSync(log, 'utf8').includes('SIGTERM: stopping the agent');
      await waitUntil('the worker to be told to stop by signal', () => told() || stopError !== undefined).catch((err: Error) => {
        throw new Error(`${err.message}; worker.log: ${existsSync(log) ? readFileSync(log, 'utf8') : '(none)'}`);
      });
      assert.equal(stopError, undefined, `stop gave up while the worker was starting: ${String(stopError)}`);
      release();
      const result = await stopping;
      assert.equal(result.state, 'cancelled');
      assert.equal(result.via, 'worker');
      const done = await sb.store.read(job.id);
      assert.equal(done.lifecycle.state, 'cancelled');
      assert.deepEqual(alive(job.id), [], 'nothing of the agent is left');
      await sb.waitForWorkerExit(launched.workerPid);
    } finally {
      release();
      await held;
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

  describe('a record that names an unrelated process (bug 46)', () => {
    let unrelated: { leader: number; sibling: number } | undefined;
    afterEach(() => {
      for (const pid of [unrelated?.leader, unrelated?.sibling]) {
        try {
          if (pid) process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      unrelated = undefined;
    });

    /** A `sleep` leading a session of its own, with a sibling `sleep` in it: nothing of any agent. */
    async function unrelatedSession(): Promise<{ leader: number; sibling: number }> {
      const child = spawn('bash', ['-c', 'sleep 611 & exec sleep 612'], { detached: true, stdio: 'ignore' });
      child.unref();
      const leader = child.pid!;
      await waitUntil('unrelated session', () => sessionMembers(leader).filter((p) => p.comm === 'sleep').length === 2);
      const sibling = sessionMembers(leader).find((p) => p.pid !== leader)!.pid;
      unrelated = { leader, sibling };
      return unrelated;
    }

    const untouched = (u: { leader: number; sibling: number }) => {
      for (const pid of [u.leader, u.sibling]) assert.equal(readProcStat(pid)?.state === 'S' || readProcStat(pid)?.state === 'R', true, `unrelated ${pid} still runs`);
    };

    function edit(id: string, change: (record: { lifecycle: Record<string, unknown>; execution: unknown; launch: unknown }) => void): void {
      const file = join(sb.home, 'jobs', id, 'job.json');
      const record = JSON.parse(readFileSync(file, 'utf8'));
      change(record);
      writeFileSync(file, JSON.stringify(record));
    }

    it('stop --force of an ended agent edited to say running with its pids set to them: reads orphaned, signals nothing unrelated', async () => {
      const job = await sb.start(['sh', '-c', 'echo done'], { waitFor: ['completed'] });
      await sb.waitForWorkerExit(job.lifecycle.workerPid ?? (await sb.store.read(job.id)).execution?.pid ?? 0).catch(() => undefined);
      const u = await unrelatedSession();
      edit(job.id, (r) => {
        Object.assign(r.lifecycle, { state: 'running', endedAt: null, exitCode: null, pid: u.leader, workerPid: u.leader });
        r.execution = null;
        r.launch = null;
      });
      const result = await stopJob(sb.store, job.id, { force: true, connectTimeoutMs: 500 });
      await sleep(200);
      untouched(u);
      assert.equal(result.state, 'orphaned');
      const record = await sb.store.read(job.id);
      assert.equal(record.lifecycle.state, 'orphaned');
      assert.match(record.lifecycle.detail ?? '', /names no owner/);
      assert.equal(record.lifecycle.pid, null);
    });

    it('stop of an ended record whose pid was edited to name them: their session is not the agent\'s', async () => {
      const job = await sb.start(['sh', '-c', 'echo done'], { waitFor: ['completed'] });
      const u = await unrelatedSession();
      edit(job.id, (r) => {
        r.lifecycle.pid = u.leader;
      });
      for (const force of [false, true]) {
        const result = await stopJob(sb.store, job.id, { force, graceMs: 200 });
        assert.deepEqual(result.ended ?? [], []);
      }
      await sleep(200);
      untouched(u);
    });

    it('stop --force of a frozen worker whose record names them as the agent: worker and agent killed, they are not', async () => {
      const job = await sb.start(['sh', '-c', 'setsid sleep 600 & sleep 601'], { settings: { stopGraceMs: 600_000 } });
      await waitUntil('children', () => alive(job.id).filter((p) => p.comm === 'sleep').length === 2);
      const worker = (await sb.store.read(job.id)).execution!;
      const u = await unrelatedSession();
      process.kill(worker.pid, 'SIGSTOP');
      await waitUntil('frozen', () => readProcStat(worker.pid)?.state === 'T');
      try {
        edit(job.id, (r) => {
          r.lifecycle.pid = u.leader;
        });
        const result = await stopJob(sb.store, job.id, { force: true });
        assert.equal(result.state, 'cancelled');
        await sleep(200);
        untouched(u);
        assert.deepEqual(alive(job.id), [], 'the agent, found by its marker, is ended');
        assert.ok(['gone', 'Z'].includes(readProcStat(worker.pid)?.state ?? 'gone'), 'the frozen worker is dead');
      } finally {
        try {
          process.kill(worker.pid, 'SIGCONT');
        } catch {
          // killed
        }
      }
    });
  });
});

/** Whether the process has a handler for SIGHUP (bit 0 of its caught-signals mask in /proc). */
function catchesSighup(pid: number): boolean {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & 1n) !== 0n;
  } catch {
    return false;
  }
}
