/**
 * What a keep makes wait, and what it must not (bug 154): a Stop of the kept attempt, from another
 * window or the CLI, goes on at once while Keep This One cleans up the others; Clean Ups of the kept
 * attempt asked meanwhile wait for the keep without holding the capacity slots its cleanups need.
 * Real workers and PTYs; two attempts ignore SIGTERM, so each of the keep's stops waits its grace.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isTerminalState } from '../../../../src/core/store';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const PROFILES = {
  writer: { command: 'sh', args: ['-c', 'echo mine > mine.txt; sleep 600'] },
  // Ignores SIGTERM: the keep's cleanup of it waits the whole stop grace before SIGKILL.
  stubborn: { command: 'sh', args: ['-c', 'trap "" TERM HUP INT; echo mine > mine.txt; sleep 600'] },
};

describe('Keep This One: what waits for a keep', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** A group of three running (a writer, two stubborn) and a keep of the writer under way in window one. */
  async function keepUnderWay(grace: number) {
    const one = sb.coordinator({ maxConcurrent: 4, profiles: PROFILES, stopGraceSeconds: grace });
    const two = sb.coordinator({ maxConcurrent: 4, profiles: PROFILES, stopGraceSeconds: grace });
    await Promise.all([one.ready, two.ready]);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer', 'stubborn', 'stubborn']);
    for (const j of jobs) await sb.waitFor(j.id, (r) => r.lifecycle.state === 'running' && existsSync(join(j.worktree!, 'mine.txt')));
    const state = { done: false };
    const keeping = one.keepAttempt(jobs[0].id).finally(() => (state.done = true));
    await sb.waitFor(jobs[1].id, (r) => r.cleanup !== null);
    return { one, two, jobs, keeping, state };
  }

  it('a Stop of the kept attempt in another window during a keep goes on at once', async () => {
    const { two, jobs, keeping, state } = await keepUnderWay(8);
    const report = await two.stop(jobs[0].id);
    assert.equal(state.done, false, 'the Stop returned before the keep had finished');
    assert.equal(report.action, 'stopped');
    assert.ok(isTerminalState((await sb.store.read(jobs[0].id)).lifecycle.state));
    const kept = await keeping;
    assert.deepEqual(kept.failed, []);
  });

  it('paddock stop of the kept attempt during a keep goes on at once', async () => {
    const { jobs, keeping, state } = await keepUnderWay(8);
    const cli = await runCli(['stop', jobs[0].id], { cwd: sb.repo, env: sb.env, timeoutMs: 150_000 });
    assert.equal(state.done, false, `paddock stop returned before the keep had finished (${cli.stderr.trim()})`);
    assert.equal(cli.code, 0, cli.stderr);
    assert.ok(isTerminalState((await sb.store.read(jobs[0].id)).lifecycle.state));
    await keeping;
  });

  it('Clean Ups of the kept attempt asked during a keep wait for it without holding its capacity slots', async () => {
    const { one, jobs, keeping, state } = await keepUnderWay(2);
    const started = Date.now();
    // More than the window's cleanup slots, all in the keeping window.
    const cleanups = [0, 1, 2, 3, 4].map(() => one.cleanup(jobs[0].id).then(() => state.done, (e: Error) => e.message));
    const kept = await keeping;
    assert.ok(Date.now() - started < 60_000, `the keep finished in ${Date.now() - started} ms, not held up by the Clean Ups`);
    assert.deepEqual(kept.cleaned.map((r) => r.job.id), [jobs[1].id, jobs[2].id]);
    const ran = await Promise.all(cleanups);
    assert.deepEqual(ran, [true, true, true, true, true], 'each Clean Up ran after the keep and went through');
    assert.equal((await sb.store.read(jobs[0].id)).cleanup?.phase, 'complete');
  });
});
