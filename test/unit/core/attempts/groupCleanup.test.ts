/**
 * A group's Clean Ups and its keep (bug 154, third and fourth reviews): Clean Ups keep out only a keep, not each
 * other; a keep leaves alone an attempt a person is cleaning up or retried during it. Real workers
 * and PTYs; the stubborn attempts ignore SIGTERM, so each stop waits its whole grace.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupUnderWay, enterGroupCleanup } from '../../../../src/core/operations/groupLock';
import { personRetriedSince } from '../../../../src/core/operations/retry';
import { isTerminalState } from '../../../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const PROFILES = {
  writer: { command: 'sh', args: ['-c', 'echo mine > mine.txt; sleep 600'] },
  stubborn: { command: 'sh', args: ['-c', 'trap "" TERM HUP INT; echo mine > mine.txt; sleep 600'] },
  quick: { command: 'sh', args: ['-c', 'echo mine > mine.txt; sleep 3; exit 0'] },
  crasher: { command: 'sh', args: ['-c', 'echo mine >> mine.txt; sleep 1; exit 3'] },
};

describe("Attempts: a group's Clean Ups and its keep", function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  async function windows(grace: number) {
    const one = sb.coordinator({ maxConcurrent: 4, profiles: PROFILES, stopGraceSeconds: grace });
    const two = sb.coordinator({ maxConcurrent: 4, profiles: PROFILES, stopGraceSeconds: grace });
    await Promise.all([one.ready, two.ready]);
    return { one, two };
  }

  /** Another process's Clean Up of `id`: it enters the group and holds its marker until killed. */
  function cleanupInChild(gid: string, id: string) {
    const lockModule = join(__dirname, '../../../../src/core/operations/groupLock.js');
    const storeModule = join(__dirname, '../../../../src/core/store/index.js');
    const code = `const { JobStore } = require(${JSON.stringify(storeModule)});
      require(${JSON.stringify(lockModule)}).enterGroupCleanup(new JobStore({ home: ${JSON.stringify(sb.home)} }), '${gid}', '${id}')
        .then(() => { console.log('entered'); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const gone = new Promise((r) => child.once('exit', r));
    return { child, gone };
  }

  const markersOf = (id: string) => readdirSync(join(sb.home, 'coordinator', 'ops')).filter((n) => n.includes(`.cleaning-${id}-`));

  async function running(jobs: readonly { id: string; worktree?: string | null }[]) {
    for (const j of jobs) await sb.waitFor(j.id, (r) => r.lifecycle.state === 'running' && existsSync(join(j.worktree!, 'mine.txt')));
  }

  it('two windows cleaning up two attempts of one group at once run side by side, not one after the other', async () => {
    const { one, two } = await windows(6);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 2, ['stubborn', 'stubborn']);
    await running(jobs);
    const started = Date.now();
    const first = one.cleanup(jobs[0].id).then(() => Date.now() - started);
    await new Promise((r) => setTimeout(r, 200));
    const second = two.cleanup(jobs[1].id).then(() => Date.now() - started);
    const ends = await Promise.all([first, second]);
    // Each waits its 6 s grace; one after the other took 12 s and more.
    assert.ok(Math.max(...ends) < 11_000, `the Clean Ups ended at ${ends.join(' and ')} ms`);
    for (const j of jobs) assert.equal((await sb.store.read(j.id)).cleanup?.phase, 'complete');
  });

  it('a keep leaves alone an attempt a person retried during it, and says so', async () => {
    const { one, two } = await windows(6);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer', 'stubborn', 'quick']);
    await running(jobs.slice(0, 2));
    await sb.waitFor(jobs[2].id, (r) => isTerminalState(r.lifecycle.state));
    const keeping = one.keepAttempt(jobs[0].id);
    await sb.waitFor(jobs[1].id, (r) => r.cleanup !== null); // the keep is stopping the stubborn one
    const retried = await two.retry(jobs[2].id);
    const report = await keeping;
    assert.deepEqual(report.cleaned.map((r) => r.job.id), [jobs[1].id]);
    assert.deepEqual(report.skipped, [{ id: jobs[2].id, reason: 'it was retried during the keep' }]);
    const after = await sb.store.read(jobs[2].id);
    assert.equal(after.lifecycle.generation, retried.lifecycle.generation);
    assert.equal(after.cleanup?.phase ?? null, retried.cleanup?.phase ?? null, 'the retried attempt was not cleaned up');
    assert.notEqual(after.lifecycle.state, 'cancelled');
  });

  it('a keep still cleans up an attempt the scheduler restarted on its own during it (no person retried it)', async () => {
    const one = sb.coordinator({ maxConcurrent: 4, profiles: PROFILES, stopGraceSeconds: 6, autoRestart: true, recoveryLimit: 50 }, { tickMs: 100 });
    await one.ready;
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer', 'stubborn', 'crasher']);
    await running(jobs.slice(0, 2));
    const crasher = jobs[2].id;
    const before = await sb.store.read(crasher);
    // The stubborn one's 6 s grace: the crasher (1 s) is restarted by the scheduler meanwhile.
    const report = await one.keepAttempt(jobs[0].id);
    const after = await sb.store.read(crasher);
    assert.ok(after.lifecycle.generation > before.lifecycle.generation, 'the scheduler restarted the crasher during the keep');
    assert.deepEqual(report.skipped, []);
    assert.deepEqual(report.cleaned.map((r) => r.job.id).sort(), [jobs[1].id, crasher].sort());
    assert.equal(after.cleanup?.phase, 'complete');
    await new Promise((r) => setTimeout(r, 500)); // a scheduler pass or more: no restart after the keep
    const later = await sb.store.read(crasher);
    assert.equal(later.lifecycle.generation, after.lifecycle.generation);
    assert.ok(isTerminalState(later.lifecycle.state), `the crasher is ${later.lifecycle.state}`);
  });

  it("a person's retry among automatic restarts still counts as a person's (recoveries fell behind the generation)", async () => {
    const { jobs } = await sb.coordinator({ profiles: PROFILES }).startAttempts({ repo: sb.repo, prompt: 'x' }, 2, ['quick']);
    const seen = await sb.store.read(jobs[0].id);
    const at = (generation: number, recoveries: number) => ({ ...seen, recoveries, lifecycle: { ...seen.lifecycle, generation } });
    const start = at(2, 1);
    assert.equal(personRetriedSince(start, at(2, 1)), false);
    assert.equal(personRetriedSince(start, at(4, 3)), false, 'two automatic restarts');
    assert.equal(personRetriedSince(start, at(5, 1)), true, 'automatic, a person, automatic');
    assert.equal(personRetriedSince(start, at(3, 0)), true, "a person's retry");
  });

  it('a keep starting after a Clean Up entered leaves that attempt to it, and refuses to keep one being cleaned up', async () => {
    const { one } = await windows(2);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer']);
    await running(jobs);
    const gid = jobs[0].group!.id;
    // Another window's Clean Up of attempt 2 has checked "no keep" and waits for its slot.
    const entered = await enterGroupCleanup(sb.store, gid, jobs[1].id);
    try {
      const report = await one.keepAttempt(jobs[0].id);
      assert.deepEqual(report.cleaned.map((r) => r.job.id), [jobs[2].id]);
      assert.deepEqual(report.skipped.map((s) => s.id), [jobs[1].id]);
      assert.equal((await sb.store.read(jobs[1].id)).cleanup, null, 'the keep did not run beside the Clean Up');
    } finally {
      await entered.release();
    }
    const cleaning = await enterGroupCleanup(sb.store, gid, jobs[1].id);
    try {
      await assert.rejects(one.keepAttempt(jobs[1].id), /Agent .* is being cleaned up in another window or process; it cannot be kept\./);
    } finally {
      await cleaning.release();
    }
  });

  it("a Clean Up's marker counts while its process lives (stopped too), and for nothing once it was killed (SIGKILL): a keep's question removes it", async () => {
    const [gid, id] = ['gggggggg', 'aaaaaaaa'];
    const { child, gone } = cleanupInChild(gid, id);
    try {
      await new Promise((r) => child.stdout.once('data', r));
      assert.equal(await cleanupUnderWay(sb.store, gid, id), true, 'a live Clean Up');
      process.kill(child.pid!, 'SIGSTOP');
      assert.equal(await cleanupUnderWay(sb.store, gid, id), true, 'a stopped Clean Up still lives');
    } finally {
      child.kill('SIGKILL');
      await gone;
    }
    assert.ok(markersOf(id).length > 0, 'the dead Clean Up left its marker');
    assert.equal(await cleanupUnderWay(sb.store, gid, id), false, "a killed Clean Up's marker");
    assert.deepEqual(markersOf(id), [], 'and it was removed');
  });

  it("a person's Clean Up of an attempt removes the marker a killed Clean Up of it left", async () => {
    const { one } = await windows(2);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 2, ['writer']);
    await running(jobs);
    const { child, gone } = cleanupInChild(jobs[0].group!.id, jobs[1].id);
    await new Promise((r) => child.stdout.once('data', r));
    child.kill('SIGKILL');
    await gone;
    assert.ok(markersOf(jobs[1].id).length > 0, 'the killed Clean Up left its marker');
    assert.equal((await one.cleanup(jobs[1].id)).job.cleanup?.phase, 'complete');
    assert.deepEqual(markersOf(jobs[1].id), [], 'no marker (nor its folder) left in coordinator/ops');
  });
});
