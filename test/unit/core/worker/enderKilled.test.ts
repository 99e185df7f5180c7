/**
 * Bug 114, review: a worker killed (SIGKILL) while it ended what its agent left running left the
 * record saying "ending 1 process it left running" for good, a retry refused as "the worker is
 * still ending…", an automatic restart waiting until a person pressed Stop, and Stop leaving the
 * detail as it was. The worker is named with the listing now; a reader that finds it gone says the
 * processes were left running, the lead coordinator ends them, and the retry no longer waits.
 * Real workers, real PTYs, the worker killed for real. Both process backends.
 */
import * as assert from 'node:assert/strict';
import { findByEnvMarker } from '../../../../src/core/proc';
import { retryBlocker } from '../../../../src/core/operations/rules';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';

/** A daemon in its own session that ignores SIGTERM (its worker waits the whole grace on it), then `exit`. */
const daemonThen = (exit: string) => `setsid sh -c "trap '' TERM; exec sleep 617" >/dev/null 2>&1 & sleep 0.3; ${exit}`;

for (const backend of ['proc', 'portable'] as const) {
  describe(`a worker killed while it ends what its agent left running, ${backend} backend`, function () {
    this.timeout(90_000);
    let sb!: CoordinatorSandbox;
    useProcessBackend(backend);
    useCoordinatorSandbox((fresh) => (sb = fresh));

    it('the record stops saying it is being ended, the lead coordinator ends it, and a retry is allowed', async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5 }, { tickMs: 200 });
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', daemonThen('exit 0')] });
      const worker = (await sb.waitForState(job.id, ['running'])).lifecycle.workerPid!;
      const ending = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 15_000);
      assert.equal(lifecycleDetail(ending), 'exit 0; ending 1 process it left running');
      assert.match(retryBlocker(ending) ?? '', /is still ending a process it left running/);
      process.kill(worker, 'SIGKILL');
      // Said left running once the worker is found gone, then stopped by the lead coordinator (TERM, 5 s, KILL).
      // (A reader may say it exited the moment the KILL lands, before the stop writes its own words.)
      const after = await sb.waitFor(job.id, (j) => !/ending|left 1 process running|running exited/.test(lifecycleDetail(j) ?? ''), 25_000);
      assert.equal(lifecycleDetail(after), 'exit 0; stopped 1 process it left running');
      assert.deepEqual(after.leftovers, []);
      assert.equal(retryBlocker(after), null);
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'the daemon was ended');
      await c.retry(job.id);
    });

    it('an automatic restart of a crashed agent follows without anyone pressing Stop', async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5, autoRestart: true, recoveryLimit: 1 }, { tickMs: 200 });
      const script = `if [ -e ran ]; then exit 0; fi; touch ran; ${daemonThen('exit 1')}`;
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', script] });
      const worker = (await sb.waitForState(job.id, ['running'])).lifecycle.workerPid!;
      await sb.waitFor(job.id, (j) => j.lifecycle.state === 'failed', 15_000);
      process.kill(worker, 'SIGKILL');
      const restarted = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && j.lifecycle.state === 'completed', 30_000);
      assert.equal(lifecycleDetail(restarted), 'exit 0');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'the first execution\'s daemon was ended');
    });
  });
}
