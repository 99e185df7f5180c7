import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobStore } from '../../../../src/core/store';
import { claimNotification, claimSetNotification, NOTIFIED_DIR } from '../../../../src/core/store/notificationClaim';
import { exited, sampleJob, TestBed, useTestBed, waitForLine } from './helpers';

describe('notification claims: once across processes', function () {
  this.timeout(60_000);
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((freshBed, freshStore) => {
    bed = freshBed;
    store = freshStore;
  });

  it('the first claim of (job, generation, event) wins and every later one loses', async () => {
    const job = await store.create(sampleJob());
    const key = { jobId: job.id, generation: 1, event: 'failed' };
    assert.equal(await claimNotification(store.jobDir(job.id), key), true);
    assert.equal(await claimNotification(store.jobDir(job.id), key), false);
    assert.equal(await claimNotification(store.jobDir(job.id), { ...key, event: 'waiting' }), true, 'another event is another claim');
    assert.equal(await claimNotification(store.jobDir(job.id), { ...key, generation: 2 }), true, 'a retry is another claim');
    assert.deepEqual(fs.readdirSync(path.join(store.jobDir(job.id), NOTIFIED_DIR)).sort(), ['1-failed', '1-waiting', '2-failed']);
  });

  it('two processes racing for 200 keys: each key is won by exactly one of them', async () => {
    const job = await store.create(sampleJob());
    const keys = 200;
    const startAt = String(Date.now() + 1500);
    const racers = [0, 1].map(() => bed.spawnFixture('notifyClaimer', [job.id, String(keys), startAt]));
    const lines = await Promise.all(racers.map((r) => waitForLine(r, /^\[/)));
    await Promise.all(racers.map(exited));
    const [a, b] = lines.map((l) => JSON.parse(l) as number[]);
    const both = a.filter((g) => b.includes(g));
    assert.deepEqual(both, [], 'no key was won twice');
    assert.equal(a.length + b.length, keys, 'every key was won once');
  });

  it('a job whose folder is gone claims nothing (no toast rather than one per window)', async () => {
    const job = await store.create(sampleJob());
    fs.rmSync(store.jobDir(job.id), { recursive: true });
    assert.equal(await claimNotification(store.jobDir(job.id), { jobId: job.id, generation: 1, event: 'failed' }), false);
  });

  describe('capacity blocked by a set of agents', () => {
    const claim = (ids: string[]) => claimSetNotification((id) => store.jobDir(id), 'capacity-blocked', ids);

    it('is claimed once per set of blocking agents, in any order, by any number of windows', async () => {
      const [a, b, c] = await Promise.all([store.create(sampleJob()), store.create(sampleJob()), store.create(sampleJob())]);
      const windows = [bed.store(), bed.store(), bed.store()];
      const won = await Promise.all(
        windows.map((w, i) => claimSetNotification((id) => w.jobDir(id), 'capacity-blocked', i % 2 ? [b.id, a.id] : [a.id, b.id])),
      );
      assert.deepEqual(won.filter(Boolean).length, 1, 'three windows seeing one block: one toast');
      assert.equal(await claim([b.id, a.id, a.id]), false, 'the same set again, in another order, with a repeat');
      assert.equal(await claim([a.id, b.id, c.id]), true, 'one agent more is another block');
      assert.equal(await claim([c.id]), true, 'one agent less is another block');
      assert.equal(await claim([]), false, 'no blockers, nothing to show');
    });

    it('claims nothing when the first blocking agent\'s folder is gone', async () => {
      const [a, b] = await Promise.all([store.create(sampleJob()), store.create(sampleJob())]);
      const first = [a.id, b.id].sort()[0];
      fs.rmSync(store.jobDir(first), { recursive: true });
      assert.equal(await claim([a.id, b.id]), false);
      assert.equal(fs.existsSync(store.jobDir(first)), false, 'no stray folder is made');
    });
  });
});
