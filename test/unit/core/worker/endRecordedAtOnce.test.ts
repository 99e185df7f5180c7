/**
 * Bug 114: an agent whose program exited read `running` while its worker ended what it left
 * running (a second's grace, then TERM and, for one that ignores TERM, KILL after up to 5 s of
 * stop grace): six seconds of a dead agent shown as running. Its end is recorded at once now, with
 * what it left listed; the worker's settling then rewrites the detail. Real workers, real PTYs,
 * the agent's main process watched in /proc. Both process backends.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarker, readProcStat } from '../../../../src/core/proc';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';

/**
 * A daemon in its own session that ignores SIGTERM (its end takes the whole grace), then exit 0 once
 * the test has seen it running (`go` made): a fixed 0.3 s was missed by the test's reads under load
 * (every read a few `ps` runs on the portable backend), which then waited for `running` for good.
 */
const AGENT = (go: string) => ['sh', '-c', `setsid sh -c "trap '' TERM; exec sleep 607" >/dev/null 2>&1 & sleep 0.3; while [ ! -e '${go}' ]; do sleep 0.02; done; exit 0`];

for (const backend of ['proc', 'portable'] as const) {
  describe(`an agent's end is recorded when its program ends, ${backend} backend`, function () {
    this.timeout(60_000);
    let sb!: CoordinatorSandbox;
    useProcessBackend(backend);
    useCoordinatorSandbox((fresh) => (sb = fresh));

    /** Waits for the agent's main process to be gone; returns when it was seen so. */
    async function mainProcessGone(pid: number): Promise<number> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const stat = readProcStat(pid);
        if (!stat || stat.state === 'Z' || stat.state === 'X') return Date.now();
        if (Date.now() > deadline) throw new Error('the agent did not exit');
        await sleep(10);
      }
    }

    it('says completed within a second of the exit, listing what is being ended; a retry waits; then "ended"', async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5 });
      const go = join(sb.root, 'go');
      const job = await c.start({ repo: sb.repo, command: AGENT(go) });
      const running = await sb.waitForState(job.id, ['running']);
      writeFileSync(go, '');
      const goneAt = await mainProcessGone(running.lifecycle.pid!);
      const ended = await sb.waitFor(job.id, (j) => j.lifecycle.state !== 'running' && j.lifecycle.state !== 'waiting', 15_000);
      const late = Date.now() - goneAt;
      assert.ok(late < 1000, `the record said running ${late} ms after the agent's program ended`);
      assert.equal(ended.lifecycle.state, 'completed');
      assert.equal(ended.lifecycle.exitCode, 0);
      assert.equal(lifecycleDetail(ended), 'exit 0; ending 1 process it left running');
      assert.deepEqual(
        (ended.leftovers ?? []).map((p) => p.command),
        ['sleep 607'],
      );
      // Its worker ends it by the marker a new execution's processes would carry too: no retry meanwhile.
      await assert.rejects(c.retry(job.id), /is still ending a process it left running; retry once it has ended/);
      const settled = await sb.waitFor(job.id, (j) => lifecycleDetail(j) !== 'exit 0; ending 1 process it left running', 15_000);
      assert.equal(settled.lifecycle.state, 'completed');
      assert.equal(lifecycleDetail(settled), 'exit 0; ended 1 process it left running');
      assert.deepEqual(settled.leftovers, []);
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), []);
    });

    it('with endLeftoversOnExit off: completed at once, listing them, and still listed after the grace', async () => {
      const c = sb.coordinator({ endLeftoversOnExit: false });
      const go = join(sb.root, 'go');
      const job = await c.start({ repo: sb.repo, command: AGENT(go) });
      const running = await sb.waitForState(job.id, ['running']);
      writeFileSync(go, '');
      const goneAt = await mainProcessGone(running.lifecycle.pid!);
      const ended = await sb.waitFor(job.id, (j) => j.lifecycle.state !== 'running' && j.lifecycle.state !== 'waiting', 15_000);
      const late = Date.now() - goneAt;
      assert.ok(late < 800, `the record said running ${late} ms after the agent's program ended`);
      assert.equal(ended.lifecycle.state, 'completed');
      assert.equal(lifecycleDetail(ended), 'exit 0; left 1 process running');
      assert.equal(ended.leftovers?.length, 1);
      await sleep(2000); // past the grace: still listed, and left to the person
      const after = await sb.store.read(job.id);
      assert.equal(after.leftovers?.length, 1);
      const report = await c.stop(job.id, { force: true });
      assert.equal(report.stopped, true, report.reason ?? '');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), []);
    });

    it('an automatic restart waits for the leftovers to be ended, so the old worker never ends the new execution', async () => {
      const c = sb.coordinator({ autoRestart: true, recoveryLimit: 1, stopGraceSeconds: 5 }, { tickMs: 100 });
      await c.ready;
      // The first run crashes leaving a TERM-ignoring daemon; the second runs 2 s and completes.
      const script = 'if [ -e ran ]; then sleep 2; exit 0; fi; touch ran; setsid sh -c "trap \'\' TERM; exec sleep 609" >/dev/null 2>&1 & sleep 0.3; exit 1';
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', script] });
      const crashed = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'failed' && j.lifecycle.generation === 1);
      assert.equal(lifecycleDetail(crashed), 'exit 1; ending 1 process it left running');
      const second = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && (j.lifecycle.state === 'completed' || j.lifecycle.state === 'failed'), 30_000);
      assert.equal(second.lifecycle.state, 'completed', lifecycleDetail(second) ?? '');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), []);
    });

    it("a retry once the listed ones have gone is never ended by the old worker, which still ends what they forked", async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5 });
      // The first run leaves a session whose leader forks a TERM-ignoring child after the exit, then exits:
      // the listing empties (a retry is let through) while that child is still to be ended.
      const late = 'sleep 0.5; (trap \'\' TERM; exec sleep 611) & sleep 0.3';
      const script = `if [ -e ran ]; then sleep 3; exit 0; fi; touch ran; setsid sh -c "${late}" >/dev/null 2>&1 & sleep 0.2; exit 0`;
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', script] });
      await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed' && (j.leftovers ?? []).length > 0);
      await sb.waitFor(job.id, (j) => (j.leftovers ?? []).length === 0, 10_000);
      await c.retry(job.id);
      const second = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && (j.lifecycle.state === 'completed' || j.lifecycle.state === 'failed'), 30_000);
      assert.equal(second.lifecycle.state, 'completed', lifecycleDetail(second) ?? '');
      const deadline = Date.now() + 10_000;
      while (findByEnvMarker('PADDOCK_JOB_ID', job.id).length > 0) {
        if (Date.now() > deadline) throw new Error(`left running: ${JSON.stringify(findByEnvMarker('PADDOCK_JOB_ID', job.id))}`);
        await sleep(100);
      }
    });

    it('a cleanup ends a listed process that dropped the marker before it captures and removes the worktree', async () => {
      const c = sb.coordinator({ endLeftoversOnExit: false });
      // Stays in the agent's session, in its worktree, writing there, without PADDOCK_JOB_ID.
      const writer = 'trap "" HUP; exec env -u PADDOCK_JOB_ID sh -c "while :; do date >> notes.txt; sleep 0.1; done"';
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', `(${writer}) & sleep 0.3; exit 0`] });
      const ended = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed' && (j.leftovers ?? []).length === 1);
      const [listed] = ended.leftovers!;
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'not findable by the marker');
      const report = await c.cleanup(job.id);
      assert.equal(report.job.cleanup?.phase, 'complete', JSON.stringify(report.job.cleanup));
      const stat = readProcStat(listed.pid);
      assert.ok(!stat || stat.startTime !== listed.startTime || stat.state === 'Z', 'the listed writer was ended');
    });
  });
}
