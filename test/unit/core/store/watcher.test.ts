import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { once } from '../../../../src/core/common/event';
import { JobStore } from '../../../../src/core/store';
import { exited, sampleJob, TestBed, useTestBed, waitForLine } from './helpers';

describe('change notification', () => {
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((freshBed, freshStore) => {
    bed = freshBed;
    store = freshStore;
  });

  it('fires onDidChangeJob for a change made by another store (another process)', async () => {
    const job = await store.create(sampleJob());
    const watcher = store.watch({ reconcileIntervalMs: 0 });
    try {
      const changed = once(watcher.onDidChangeJob, (id) => id === job.id);
      const child = bed.spawnFixture('increment', [job.id, '1']);
      await waitForLine(child, /^done$/);
      await exited(child);
      assert.equal(await changed, job.id);
    } finally {
      watcher.dispose();
    }
  });

  it('the periodic reconcile notices a dead owner nobody wrote about', async () => {
    const job = await store.create(sampleJob());
    const child = bed.spawnFixture('claimer', [job.id, '1']);
    await waitForLine(child, /^claimed /);
    const watcher = store.watch({ reconcileIntervalMs: 100 });
    try {
      // Let the first pass record the running state, then kill the owner: no write happens, the poll must see it.
      await new Promise((r) => setTimeout(r, 150));
      const changed = once(watcher.onDidChangeJob, (id) => id === job.id);
      child.kill('SIGKILL');
      await exited(child);
      await changed;
      const jobNow = await store.read(job.id);
      assert.equal(jobNow.lifecycle.state, 'orphaned');
    } finally {
      watcher.dispose();
    }
  });

  it('stops firing once disposed', async () => {
    const job = await store.create(sampleJob());
    const watcher = store.watch({ reconcileIntervalMs: 0 });
    let fired = 0;
    watcher.onDidChangeJob(() => fired++);
    watcher.dispose();
    await store.transition(job.id, 'starting');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(fired, 0);
    assert.ok(fs.existsSync(path.join(store.home, 'changes', job.id)));
  });
});
