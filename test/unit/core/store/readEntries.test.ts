import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobStore } from '../../../../src/core/store';
import { readEntries } from '../../../../src/core/store/readEntries';
import { sampleJob, TestBed, useTestBed } from './helpers';

describe('reading records without blocking (readEntries)', () => {
  let store!: JobStore;
  useTestBed((_bed: TestBed, freshStore) => {
    store = freshStore;
  });

  it('reads what JobStore.list reads: good records, unreadable ones with their reason', async () => {
    const good = await store.create(sampleJob({ title: 'good' }));
    const broken = await store.create(sampleJob({ title: 'broken' }));
    fs.writeFileSync(path.join(store.jobDir(broken.id), 'job.json'), '{"truncated": ');
    const sorted = (entries: Awaited<ReturnType<JobStore['list']>>) => [...entries].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(sorted(await readEntries(store)), sorted(await store.list()));
    const [one] = await readEntries(store, [good.id]);
    assert.ok(one.ok && one.job.title === 'good');
  });

  it('reports a job that is gone as "no such agent", and skips ids that are not job ids', async () => {
    const job = await store.create(sampleJob());
    fs.rmSync(store.jobDir(job.id), { recursive: true });
    assert.deepEqual(await readEntries(store, [job.id, '../etc']), [{ id: job.id, ok: false, reason: 'no such agent' }]);
  });

  it('hands a record whose owner is dead to the store, which reconciles it (orphaned, on disk too)', async () => {
    const job = await store.create(sampleJob());
    await store.transition(job.id, 'starting');
    const file = path.join(store.jobDir(job.id), 'job.json');
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    record.lifecycle.state = 'running';
    record.execution = {
      ownerToken: 'x'.repeat(32), generation: record.lifecycle.generation, pid: 999_999, startTime: 1, bootId: 'no-such-boot',
      socketPath: '/nonexistent/sock', socketToken: 'y'.repeat(32), claimedAt: new Date().toISOString(),
    };
    fs.writeFileSync(file, JSON.stringify(record));
    const [entry] = await readEntries(store, [job.id]);
    assert.ok(entry.ok, entry.ok ? '' : entry.reason);
    assert.equal(entry.job.lifecycle.state, 'orphaned');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).lifecycle.state, 'orphaned');
  });
});
