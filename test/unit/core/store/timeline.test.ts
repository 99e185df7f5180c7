import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobStore } from '../../../../src/core/store';
import { sampleJob, useTestBed } from './helpers';

describe('timeline', () => {
  let store!: JobStore;
  useTestBed((_bed, fresh) => (store = fresh));

  it('records every transition in order', async () => {
    const job = await store.create(sampleJob());
    await store.transition(job.id, 'starting');
    await store.transition(job.id, 'cancelling', { detail: 'asked to stop' });
    await store.transition(job.id, 'cancelled');
    const entries = await store.readTimeline(job.id);
    assert.deepEqual(entries.map((e) => [e.from ?? null, e.to]), [[null, 'queued'], ['queued', 'starting'], ['starting', 'cancelling'], ['cancelling', 'cancelled']]);
    assert.equal(entries[2].message, 'asked to stop');
  });

  it('skips a torn last line, and a torn line in the middle does not swallow the next entry', async () => {
    const job = await store.create(sampleJob());
    const file = path.join(store.jobDir(job.id), 'timeline.jsonl');
    fs.appendFileSync(file, '{"at":"2026-01-01T00:00:00Z","generation":1,"type":"no');
    assert.deepEqual((await store.readTimeline(job.id)).map((e) => e.type), ['created']);
    await store.appendTimeline(job.id, { generation: 1, type: 'after-crash' });
    assert.deepEqual((await store.readTimeline(job.id)).map((e) => e.type), ['created', 'after-crash']);
  });

  it('is empty for a job without a timeline file', async () => {
    const job = await store.create(sampleJob());
    fs.rmSync(path.join(store.jobDir(job.id), 'timeline.jsonl'));
    assert.deepEqual(await store.readTimeline(job.id), []);
  });
});
