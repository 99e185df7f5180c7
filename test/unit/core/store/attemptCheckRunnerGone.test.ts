/**
 * An attempt's check (a `group`) whose runner died is the leader's to run again, but only while the
 * leader checks that attempt (ended completed or failed, its worktree kept). Readers left every
 * attempt's alone (found by the second review of bug 91): one on a cancelled or orphaned attempt, or
 * one whose cleanup began, said "running" for good, held a capacity slot for good and refused every
 * check ("already running"). Now a reader records those failed, as it does a person's.
 */
import * as assert from 'node:assert/strict';
import { capacityOf } from '../../../../src/core/coordinator/capacity';
import { ownIdentity } from '../../../../src/core/proc/identity';
import { worktreePathFor } from '../../../../src/core/store/agentClaims';
import type { JobStore } from '../../../../src/core/store';
import type { JobRecord, LifecycleState } from '../../../../src/core/store/schema';
import { sampleJob, useTestBed } from './helpers';

describe('store: an attempt\'s check whose runner is gone', () => {
  let store!: JobStore;
  useTestBed((_bed, s) => (store = s));

  /** An attempt ended `state`, its check recorded running by a process that is gone (this one, another start time). */
  async function attemptWithGoneRunner(state: LifecycleState): Promise<string> {
    const { id } = await store.create(sampleJob());
    const at = new Date().toISOString();
    const runner = { ...ownIdentity()!, startTime: 1 };
    // Ended as a worker ends it (a legal path there).
    for (const step of state === 'cancelled' ? (['starting', 'cancelling'] as const) : (['starting'] as const)) await store.update(id, (j: JobRecord) => ({ ...j, lifecycle: { ...j.lifecycle, state: step } }));
    await store.update(id, (j: JobRecord) => ({
      ...j,
      worktree: worktreePathFor(j.repo, j.id, null),
      group: { id: 'grp12345', title: 't', index: 1, size: 2 },
      lifecycle: { ...j.lifecycle, state, endedAt: at },
      check: { state: 'running', exitCode: null, durationMs: null, at, summary: '', runner },
    }));
    return id;
  }

  it('is recorded failed on a cancelled or orphaned attempt (a listing or a read), and left to the leader on a completed one', async () => {
    const cancelled = await attemptWithGoneRunner('cancelled');
    const orphaned = await attemptWithGoneRunner('orphaned');
    const completed = await attemptWithGoneRunner('completed');
    const entries = await store.list();
    const listed = entries.flatMap((e) => (e.ok ? [e.job] : []));
    assert.equal(listed.find((j) => j.id === cancelled)?.check?.state, 'failed', 'a listing');
    const c = (await store.read(orphaned)).check;
    assert.equal(c?.state, 'failed', JSON.stringify(c));
    assert.match(c!.summary, /^The process running it \(pid \d+\) ended before the check finished; run the check again\.$/);
    assert.equal((await store.read(completed)).check?.state, 'running', "the leader's: it ends what the check left and runs it again");
    // Only the leader's still holds a slot (until the leader runs it again).
    assert.equal(capacityOf(await store.list(), 4).used, 1);
  });
});
