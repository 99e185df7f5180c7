/**
 * A person's check recorded `running` that names no runner (records from before runners were
 * recorded; the schema allows it): found by review of bug 91's sibling for attempts. Nothing judged
 * it, so it refused every check of the agent ("already running") and held a capacity slot for good.
 * Now a reader records it failed once it is RUNNERLESS_CHECK_GRACE_MS old; a fresher one is kept.
 */
import * as assert from 'node:assert/strict';
import { RUNNERLESS_CHECK_GRACE_MS } from '../../../../src/core/store/checkRunner';
import type { JobStore } from '../../../../src/core/store';
import type { JobRecord } from '../../../../src/core/store/schema';
import { sampleJob, useTestBed } from './helpers';

describe('store: a check recorded running by no runner', () => {
  let store!: JobStore;
  useTestBed((_bed, s) => (store = s));

  async function endedWithRunnerlessCheck(ageMs: number): Promise<string> {
    const { id } = await store.create(sampleJob());
    const at = new Date(Date.now() - ageMs).toISOString();
    await store.update(id, (j: JobRecord) => ({
      ...j,
      lifecycle: { ...j.lifecycle, state: 'cancelled', endedAt: at },
      check: { state: 'running', exitCode: null, durationMs: null, at, summary: '' },
    }));
    return id;
  }

  it('is recorded failed by a read or a listing once it is older than the grace, kept before', async () => {
    const old = await endedWithRunnerlessCheck(RUNNERLESS_CHECK_GRACE_MS + 60_000);
    const listedOld = await endedWithRunnerlessCheck(RUNNERLESS_CHECK_GRACE_MS + 60_000);
    const fresh = await endedWithRunnerlessCheck(1000);
    const listed = (await store.list()).flatMap((e) => (e.ok ? [e.job] : []));
    assert.equal(listed.find((j) => j.id === listedOld)?.check?.state, 'failed', 'a listing');
    const c = (await store.read(old)).check;
    assert.equal(c?.state, 'failed', JSON.stringify(c));
    assert.match(c!.summary, /by no process it names/);
    assert.equal((await store.read(fresh)).check?.state, 'running', 'within the grace: it may still run');
  });
});
