/**
 * Bug 114, second review: the lead pass that ends what a killed worker left running acted on the
 * job list read at the start of the pass. A retry allowed once a reader marked that worker gone
 * started generation 2, and the pass, holding a list from before it, stopped the retried running
 * agent (cancelled). And when the listed leftovers exited by themselves after the worker was
 * marked gone, the detail said "left 1 process running" for good and every pass looked again.
 * Real workers, real PTYs, the worker killed for real; the pass given the stale list directly.
 */
import * as assert from 'node:assert/strict';
import { findByEnvMarker } from '../../../../src/core/proc';
import { jobLock } from '../../../../src/core/operations/context';
import { endAbandonedLeftovers } from '../../../../src/core/scheduler/abandonedLeftovers';
import type { OperationContext } from '../../../../src/core/operations/context';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';

const daemon = (tag: number) => `setsid sh -c "trap '' TERM; exec sleep ${tag}" >/dev/null 2>&1 & sleep 0.3`;

for (const backend of ['proc', 'portable'] as const) {
  describe(`the lead pass over what a killed worker left running, ${backend} backend`, function () {
    this.timeout(90_000);
    let sb!: CoordinatorSandbox;
    useProcessBackend(backend);
    useCoordinatorSandbox((fresh) => (sb = fresh));

    it('never stops a retry started after the pass read its list', async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5 });
      const script = `if [ -e ran ]; then exec sleep 300; fi; touch ran; ${daemon(617)}; exit 0`;
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', script] });
      const worker = (await sb.waitForState(job.id, ['running'])).lifecycle.workerPid!;
      await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 15_000);
      process.kill(worker, 'SIGKILL');
      await sleep(300);
      const listed = await sb.store.read(job.id); // the pass's list: the ender marked gone
      assert.equal(listed.leftoversEnder?.gone, true);
      await c.retry(job.id);
      await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && j.lifecycle.state === 'running', 15_000);
      await endAbandonedLeftovers((c as unknown as { ctx: OperationContext }).ctx, [listed], (id) => jobLock(sb.store, id).tryAcquire());
      await sleep(500);
      const after = await sb.store.read(job.id);
      assert.equal(after.lifecycle.generation, 2);
      assert.equal(after.lifecycle.state, 'running', lifecycleDetail(after) ?? '');
      await c.stop(job.id, { force: true });
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', job.id)) process.kill(p.pid, 'SIGKILL');
    });

    it('once the listed leftovers exit by themselves, the gone worker is done with and the detail says so', async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5 });
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', `${daemon(618)}; exit 0`] });
      const worker = (await sb.waitForState(job.id, ['running'])).lifecycle.workerPid!;
      await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 15_000);
      process.kill(worker, 'SIGKILL');
      await sleep(300);
      assert.equal((await sb.store.read(job.id)).leftoversEnder?.gone, true);
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', job.id)) process.kill(p.pid, 'SIGKILL');
      await sleep(300);
      const pass = await sb.store.read(job.id);
      assert.deepEqual(pass.leftovers, []);
      await endAbandonedLeftovers((c as unknown as { ctx: OperationContext }).ctx, [pass], (id) => jobLock(sb.store, id).tryAcquire());
      const read = await sb.store.read(job.id);
      assert.equal(read.leftoversEnder, null);
      assert.doesNotMatch(lifecycleDetail(read) ?? '', /left 1 process running|ending/);
      assert.equal((await sb.store.list()).find((e) => e.id === job.id && e.ok && e.job.leftoversEnder), undefined);
    });

    // Third review: the listing empty (its one process exited), a reader cleared the gone ender and
    // the pass skipped the job, so a marked process it had forked ran on unattended.
    it('ends a marked process a listed one forked before it exited', async () => {
      const c = sb.coordinator({ stopGraceSeconds: 5 });
      const script = `setsid sh -c "sleep 2; (exec sleep 619 &); exit 0" >/dev/null 2>&1 & sleep 0.3; exit 0`;
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', script] });
      const worker = (await sb.waitForState(job.id, ['running'])).lifecycle.workerPid!;
      await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 15_000);
      process.kill(worker, 'SIGKILL');
      await sleep(300);
      const listed = await sb.store.read(job.id);
      assert.equal(listed.leftoversEnder?.gone, true);
      await sleep(2500); // the listed one forks the marked sleep and exits
      const read = await sb.store.read(job.id);
      assert.deepEqual(read.leftovers, []);
      await endAbandonedLeftovers((c as unknown as { ctx: OperationContext }).ctx, [read], (id) => jobLock(sb.store, id).tryAcquire());
      await sleep(500);
      const marked = findByEnvMarker('PADDOCK_JOB_ID', job.id);
      for (const p of marked) process.kill(p.pid, 'SIGKILL');
      assert.deepEqual(marked.map((p) => p.comm), [], 'a marked process outlived the lead pass');
      assert.equal((await sb.store.read(job.id)).leftoversEnder, null);
    });
  });
}
