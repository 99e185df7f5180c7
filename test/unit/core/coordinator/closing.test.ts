/**
 * A window closing or reloading while it runs a check or a worktree's teardown: both run in
 * sessions of their own, so nothing of the window's end reaches them. Found by hand: a person's
 * Run Check went on running after a reload, recorded failed by the next reader ("its runner
 * ended") with its processes still there until a Stop. `Coordinator.close` (what `deactivate`
 * calls) ends them, within VS Code's time for deactivation, and records how they ended.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarkerAsync } from '../../../../src/core/proc';
import { AGENT_MARKER_ENV } from '../../../../src/core/worker/agentMarker';
import { needsAutomaticCheck } from '../../../../src/core/scheduler/automaticChecks';
import { CLI_SCRIPT, CoordinatorSandbox, git, runCli, sleep, useCoordinatorSandbox } from './coordinatorFixture';

/** What VS Code gives `deactivate` before the extension host exits. */
const DEACTIVATE_MS = 5000;
/** The default stop grace: a check's or a teardown's is 5 s of it, longer than a closing window has. */
const LONG_GRACE = { stopGraceSeconds: 10 };

describe('Coordinator: a closing window ends what it runs in sessions of its own', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));


  /** Closes `c` as a window's deactivation does, once `began` exists; how long it took. */
  async function closeOnce(c: ReturnType<CoordinatorSandbox['coordinator']>, began: string): Promise<number> {
    while (!existsSync(began)) await sleep(25);
    await sleep(200);
    const at = Date.now();
    await c.close(4000);
    return Date.now() - at;
  }

  it("a person's check, a child that ignores TERM and one escaped with setsid among what it started, is ended and recorded failed saying the window closed", async () => {
    const began = join(sb.root, 'check-began');
    const c = sb.coordinator(LONG_GRACE);
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(job.id);
    const checking = c.check(job.id, { settingCommand: `echo checking; touch ${began}; setsid sleep 41 & sh -c 'trap "" TERM; sleep 42' & sleep 43` });
    const took = await closeOnce(c, began);
    assert.ok(took < DEACTIVATE_MS - 500, `closed in ${took} ms, inside the time VS Code gives deactivate`);
    assert.deepEqual(await findByEnvMarkerAsync(AGENT_MARKER_ENV, job.id), [], 'nothing of the check runs');
    const check = await checking;
    assert.equal(check.state, 'failed');
    assert.match(check.summary, /^checking\n\(the window running the check closed; the check was ended, with everything it started\)$/);
    const recorded = await sb.store.read(job.id);
    assert.equal(recorded.check?.state, 'failed');
    assert.equal(recorded.check?.runner, null);
    // A check asked for once the window is closing is not begun.
    await assert.rejects(c.check(job.id, { settingCommand: 'true' }), /was not started: this window is closing/);
  });

  it("an attempt's check ended by a closing leader is queued, and the next leader runs it again", async () => {
    const began = join(sb.root, 'check-began');
    const quick = join(sb.root, 'check-quick');
    await sb.trustCheck(`touch ${began}; test -f ${quick} && echo checked || sleep 44`);
    const leader = sb.coordinator({ ...LONG_GRACE, maxConcurrent: 4 }, { tickMs: 200 });
    await leader.ready;
    const { jobs } = await leader.startAttempts({ repo: sb.repo, command: ['true'] }, 2);
    await Promise.all(jobs.map((j) => sb.waitFor(j.id, (r) => r.check?.state === 'running')));
    const took = await closeOnce(leader, began);
    assert.ok(took < DEACTIVATE_MS - 500, `closed in ${took} ms`);
    for (const job of jobs) {
      assert.deepEqual(await findByEnvMarkerAsync(AGENT_MARKER_ENV, job.id), [], 'nothing of the check runs');
      const queued = await sb.store.read(job.id);
      assert.equal(queued.check?.state, 'queued', queued.check?.summary);
      assert.equal(queued.check?.runner, null);
      assert.ok(needsAutomaticCheck(queued), 'due for the next leader');
    }
    leader.dispose();
    await leader.whenIdle();

    writeFileSync(quick, '');
    const next = sb.coordinator({ maxConcurrent: 4 }, { tickMs: 200 });
    await next.ready;
    for (const job of jobs) {
      const done = await sb.waitFor(job.id, (j) => j.check?.state === 'passed', 20_000);
      assert.equal(done.check?.summary, 'checked');
    }
  });

  it('`paddock coordinate` leading ends the checks it runs when it is stopped (SIGTERM) or its terminal closes (SIGHUP)', async () => {
    const began = join(sb.root, 'check-began');
    await sb.trustCheck(`touch ${began}; sleep 47`);
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      rmSync(began, { force: true });
      const coordinating = spawn(process.execPath, [CLI_SCRIPT, 'coordinate'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      coordinating.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => coordinating.once('close', resolve));
      while (!stderr.includes('now leads')) await sleep(25);
      const started = await runCli(['start', '--attempts', '2', '--', 'true'], { cwd: sb.repo, env: sb.env });
      assert.equal(started.code, 0, started.stderr);
      const ids = started.stdout.trim().split('\n');
      await Promise.all(ids.map((id) => sb.waitFor(id, (j) => j.check?.state === 'running')));
      while (!existsSync(began)) await sleep(25);
      await sleep(200);
      coordinating.kill(signal);
      assert.equal(await exited, 0, stderr);
      assert.match(stderr, new RegExp(`${signal}: stopping the coordinator`));
      for (const id of ids) {
        assert.deepEqual(await findByEnvMarkerAsync(AGENT_MARKER_ENV, id), [], `nothing of ${id}'s check runs`);
        assert.equal((await sb.store.read(id)).check?.state, 'queued', 'the next leader runs it again');
      }
    }
  });

  it('a teardown is ended the same way: the cleanup is incomplete at terminating, nothing is removed, and a later cleanup completes', async () => {
    const began = join(sb.root, 'teardown-began');
    const quick = join(sb.root, 'teardown-quick');
    const c = sb.coordinator({ ...LONG_GRACE, worktree: { teardown: `touch ${began}; test -f ${quick} || { sh -c 'trap "" TERM; sleep 45' & sleep 46; }` } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo work > work.txt'] });
    await sb.waitEnded(job.id);
    const cleaning = c.cleanup(job.id);
    const took = await closeOnce(c, began);
    assert.ok(took < DEACTIVATE_MS - 500, `closed in ${took} ms`);
    // Looked at as soon as closing returns: the extension host exits then.
    assert.deepEqual(await findByEnvMarkerAsync(AGENT_MARKER_ENV, job.id), [], 'nothing of the teardown runs');
    const report = await cleaning;
    assert.equal(report.job.cleanup?.phase, 'incomplete');
    assert.equal(report.job.cleanup?.stage, 'terminating');
    assert.equal(report.job.cleanup?.lastError, 'teardown interrupted and ended, with everything it started');
    assert.ok(existsSync(join(job.worktree!, 'work.txt')), 'nothing removed');
    c.dispose();
    await c.whenIdle();

    writeFileSync(quick, '');
    const next = sb.coordinator({ worktree: { teardown: `test -f ${quick}` } });
    const done = await next.retryCleanup(job.id);
    assert.equal(done.job.cleanup?.phase, 'complete', done.job.cleanup?.lastError ?? '');
    assert.equal(git(sb.repo, 'show', `${done.job.evidence!.snapshotRef}:work.txt`), 'work');
  });
});
