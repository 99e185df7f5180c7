import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobStore } from '../../../../src/core/store';
import { claimNotification, NOTIFIED_DIR } from '../../../../src/core/store/notificationClaim';
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
});
