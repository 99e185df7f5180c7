/** Ended and running agents: retry in the same worktree, stop and Stop All, what they left running, automatic restarts. */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarker } from '../../../../src/core/proc';
import { isTerminalState, lifecycleDetail } from '../../../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox, sleep } from './coordinatorFixture';

describe('Coordinator: retry, stop, restarts', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('retry runs a new generation in the same worktree with a separator in the log', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo run >> runs.txt; echo first-output; exit 3'] });
    const failed = await sb.waitEnded(job.id);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.equal(failed.lifecycle.exitCode, 3);
    await c.retry(job.id);
    const again = await sb.waitEnded(job.id);
    assert.equal(again.lifecycle.generation, 2);
    assert.equal(again.worktree, job.worktree);
    assert.equal(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), 'run\nrun\n');
    const output = (await sb.store.readOutput(job.id)).toString();
    assert.match(output, /first-output[\s\S]*retried: generation 2[\s\S]*first-output/);
  });

  it('retry refuses a running agent with a usage error', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    await sb.waitForState(job.id, ['running']);
    await assert.rejects(c.retry(job.id), (e: Error & { kind?: string }) => e.kind === 'usage' && /running/.test(e.message));
    await c.stop(job.id, { force: true });
  });

  it('uses the profile resume arguments on retry', async () => {
    const c = sb.coordinator({
      profiles: { echoer: { command: 'sh', args: ['-c', 'echo first {prompt}'], resumeArgs: ['-c', 'echo resumed'] } },
    });
    const job = await c.start({ repo: sb.repo, profile: 'echoer', prompt: 'hello' });
    assert.deepEqual(job.command, ['sh', '-c', 'echo first hello']);
    await sb.waitEnded(job.id);
    await c.retry(job.id);
    const again = await sb.waitEnded(job.id);
    assert.deepEqual(again.command, ['sh', '-c', 'echo resumed']);
    assert.match((await sb.store.readOutput(job.id)).toString(), /first hello[\s\S]*resumed/);
  });

  it('stop cancels a queued agent and a running one; stopAll proves all stopped', async () => {
    const c = sb.coordinator({ maxConcurrent: 1 });
    const a = await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    const b = await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    assert.equal(b.lifecycle.state, 'queued');
    await sb.waitForState(a.id, ['running']);
    const stoppedB = await c.stop(b.id);
    assert.equal(stoppedB.stopped, true);
    assert.equal((await sb.store.read(b.id)).lifecycle.state, 'cancelled');
    const report = await c.stopAll();
    assert.deepEqual(report.notStopped, []);
    assert.deepEqual(report.stopped, [a.id]);
    assert.equal((await sb.store.read(a.id)).lifecycle.state, 'cancelled');
  });

  it('stopAll also ends an agent whose record became unreadable while it runs, leaving the record as it was', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'setsid sleep 600 & sleep 601'] });
    const marked = () => findByEnvMarker('PADDOCK_JOB_ID', job.id);
    const deadline = Date.now() + 10_000;
    while (marked().filter((p) => p.comm === 'sleep').length < 2 && Date.now() < deadline) await sleep(25);
    const record = join(sb.home, 'jobs', job.id, 'job.json');
    writeFileSync(record, '{garbage\n');
    try {
      const report = await c.stopAll();
      assert.deepEqual(report, { stopped: [job.id], notStopped: [] });
      assert.deepEqual(marked().map((p) => `${p.pid} ${p.comm}`), []);
      assert.equal(readFileSync(record, 'utf8'), '{garbage\n');
      const entry = await sb.store.tryRead(job.id);
      assert.ok(!entry.ok && entry.workerRunning === undefined, 'its worker released the execution');
    } finally {
      for (const p of marked()) process.kill(p.pid, 'SIGKILL');
    }
  });

  it('stop ends what an orphaned agent left running, and says what it ended', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'setsid sleep 600 & nohup sleep 601 >/dev/null 2>&1 & sleep 602'] });
    const marked = () => findByEnvMarker('PADDOCK_JOB_ID', job.id);
    const deadline = Date.now() + 10_000;
    while (marked().filter((p) => p.comm === 'sleep').length < 3 && Date.now() < deadline) await sleep(25);
    const workerPid = (await sb.store.read(job.id)).execution!.pid;
    process.kill(workerPid, 'SIGKILL');
    const orphaned = await sb.waitForState(job.id, ['orphaned']);
    assert.equal(orphaned.lifecycle.state, 'orphaned');
    assert.ok(marked().length > 0, 'the setsid/nohup children outlived their worker');
    const report = await c.stop(job.id);
    assert.equal(report.stopped, true, report.reason ?? '');
    assert.equal(report.action, 'ended-leftovers');
    assert.equal(report.state, 'orphaned');
    assert.ok(report.ended.some((p) => p.command === 'sleep'), JSON.stringify(report.ended));
    assert.deepEqual(marked(), []);
  });

  it('an agent that exits has what it left running ended by its worker (paddock.endLeftoversOnExit)', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'setsid sh -c "trap \'\' TERM; sleep 600" >/dev/null 2>&1 & sleep 0.3; exit 0'] });
    // Its end is recorded at once ("ending … it left running", bug 114); the detail says so once they are ended.
    const done = await sb.waitFor(job.id, (j) => /ended/.test(lifecycleDetail(j) ?? ''));
    assert.equal(done.lifecycle.state, 'completed');
    assert.match(lifecycleDetail(done) ?? '', /^exit 0; ended [1-9]\d* process(es)? it left running$/);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), []);
  });

  it('stop --force ends what a completed agent left running (with endLeftoversOnExit off)', async () => {
    const c = sb.coordinator({ endLeftoversOnExit: false });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'setsid sh -c "trap \'\' TERM; sleep 600" >/dev/null 2>&1 & sleep 0.3; exit 0'] });
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed');
    const marked = () => findByEnvMarker('PADDOCK_JOB_ID', job.id);
    assert.ok(marked().length > 0, 'the setsid child outlived the agent');
    const report = await c.stop(job.id, { force: true });
    assert.equal(report.stopped, true, report.reason ?? '');
    assert.equal(report.action, 'ended-leftovers');
    assert.deepEqual(marked(), []);
  });

  it('a crashed agent an operation held as it crashed is restarted once that operation\'s process dies, with nothing else happening', async () => {
    const c = sb.coordinator({ autoRestart: true, recoveryLimit: 1 }, { tickMs: 100 });
    await c.ready;
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo x >> runs.txt; while [ ! -e crash ]; do sleep 0.05; done; rm crash; exit 1'] });
    await sb.waitFor(job.id, (j) => j.lifecycle.state === 'running');
    // A person's operation on the agent (its process then killed) holds the lock when the agent crashes.
    const operation = await sb.holdJobLockElsewhere(job.id);
    try {
      writeFileSync(join(job.worktree!, 'crash'), '');
      await sb.waitFor(job.id, (j) => j.lifecycle.state === 'failed');
      await sleep(500); // passes that had to leave it alone
      assert.equal((await sb.store.read(job.id)).lifecycle.generation, 1, 'not restarted under a live operation');
      await operation.kill();
      const restarted = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2, 10_000);
      assert.equal(restarted.recoveries, 1);
    } finally {
      await operation.kill();
    }
  });

  it('restarts a crashed agent automatically only when enabled, up to recoveryLimit', async () => {
    const c = sb.coordinator({ autoRestart: true, recoveryLimit: 2 }, { tickMs: 100 });
    await c.ready;
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo x >> crashes.txt; exit 1'] });
    const final = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 3 && isTerminalState(j.lifecycle.state));
    assert.equal(final.recoveries, 2);
    await sleep(500); // more passes: no fourth run
    const after = await sb.store.read(job.id);
    assert.equal(after.lifecycle.generation, 3);
    assert.equal(readFileSync(join(job.worktree!, 'crashes.txt'), 'utf8'), 'x\nx\nx\n');
  });
});
