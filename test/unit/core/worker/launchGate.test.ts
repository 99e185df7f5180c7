/**
 * The launch gate: a worker spawned before its worktree exists touches nothing
 * until the launcher says `go`, and exits untouched when the launcher calls it
 * off or dies (its pipe closes). Real worker processes over a real store.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { bootId, identityOf } from '../../../../src/core/proc';
import { LAUNCH_FAILED_DETAIL } from '../../../../src/core/store';
import { awaitLaunchGate } from '../../../../src/core/worker/launchGate';
import { spawnWorker, WORKER_LOG_FILE } from '../../../../src/core/worker/spawn';
import { nodePtyPath, Sandbox, sleep, workerScript } from './fixtures';

describe('launch gate', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.dispose());

  const createJob = (command: string[]) => sb.createJob(command);

  const spawnGated = async (jobId: string) => {
    const worker = await spawnWorker({ home: sb.home, jobId, generation: 1, workerScript: workerScript(), nodePtyPath: nodePtyPath(), env: sb.env, store: sb.store, gated: true });
    sb.adoptWorker(worker.pid);
    return worker;
  };

  it('opens on go, and only on go', async () => {
    const go = new PassThrough();
    const opened = awaitLaunchGate(go);
    go.write('g');
    go.write('o\n');
    assert.equal(await opened, true);
    const garbage = new PassThrough();
    const refused = awaitLaunchGate(garbage);
    garbage.write('stop and do nothing\n');
    assert.equal(await refused, false);
    const ended = new PassThrough();
    const closed = awaitLaunchGate(ended);
    ended.end();
    assert.equal(await closed, false);
  });

  it('a gated worker claims nothing until go, then runs the agent', async () => {
    const job = await createJob(['sh', '-c', 'echo gate-opened']);
    const worker = await spawnGated(job.id);
    await sleep(700); // long enough for the worker to boot and claim, were it not gated
    const waiting = await sb.store.read(job.id);
    assert.equal(waiting.execution, null, 'no claim before go');
    assert.equal(waiting.lifecycle.state, job.lifecycle.state);
    assert.equal(waiting.launch?.workerPid, worker.pid);
    worker.release(true);
    const done = await sb.waitForState(job.id, ['completed', 'failed']);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
  });

  it('a worker spawned for a start failed meanwhile (its launcher was suspended, bug 132) is not written onto the ended record', async () => {
    const job = await createJob(['sh', '-c', 'touch ran']);
    await sb.store.transition(job.id, 'starting');
    await sb.store.transition(job.id, 'failed', { detail: 'given back' });
    const worker = await spawnGated(job.id);
    assert.equal((await sb.store.read(job.id)).launch ?? null, null, 'an ended record names no launch');
    worker.release(false);
    await sb.waitForWorkerExit(worker.pid);
    assert.equal(existsSync(join(sb.cwd, 'ran')), false, 'the agent never ran');
  });

  it('a worker whose launch is called off exits without touching the job', async () => {
    const job = await createJob(['sh', '-c', 'touch ran']);
    const worker = await spawnGated(job.id);
    worker.release(false);
    await sb.waitForWorkerExit(worker.pid);
    const after = await sb.store.read(job.id);
    assert.equal(after.execution, null, 'never claimed');
    // Not the worker's doing: a reader judges a launch whose worker is gone (the launcher records its own reason first).
    assert.equal(after.lifecycle.detail, LAUNCH_FAILED_DETAIL);
    assert.equal(after.lifecycle.startedAt, null);
    assert.equal(existsSync(join(sb.cwd, 'ran')), false, 'the agent never ran');
    assert.match(readFileSync(join(sb.store.jobDir(job.id), WORKER_LOG_FILE), 'utf8'), /called off before it began/);
  });

  it('a worker whose launcher died (its pipe closed) exits, and the next read fails the launch', async () => {
    const job = await createJob(['sh', '-c', 'touch ran']);
    // The launcher's side of the pipe, as the kernel leaves it when the launcher dies: closed without a word.
    const child = spawn(process.execPath, [workerScript(), '--home', sb.home, '--job', job.id, '--generation', '1', '--node-pty', nodePtyPath(), '--gated'], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: sb.env,
    });
    const identity = identityOf(child.pid!)!;
    await sb.store.update(job.id, (j) => {
      j.launch = { workerPid: child.pid!, startTime: identity.startTime, bootId: bootId(), generation: 1, launchedAt: new Date().toISOString() };
    });
    assert.equal((await sb.store.read(job.id)).lifecycle.state, job.lifecycle.state, 'a live gated worker is not judged gone');
    child.stdin!.destroy();
    await sb.waitForWorkerExit(child.pid!);
    const after = await sb.store.read(job.id);
    assert.equal(after.lifecycle.state, 'failed');
    assert.equal(after.lifecycle.detail, LAUNCH_FAILED_DETAIL);
    assert.equal(existsSync(join(sb.cwd, 'ran')), false, 'the agent never ran');
  });
});
