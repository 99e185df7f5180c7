/**
 * Recording figures goes through the store's one write path under the job's
 * lock: it loses no other writer's change made at the same time, and writes
 * nothing when the figures moved by 5 % or less.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { JobStore, Usage } from '../../../../src/core/store';
import { usageChanged } from '../../../../src/core/usage/significance';
import { exited, sampleJob, TestBed, useTestBed } from '../store/helpers';

const usage = (rss: number): Usage => ({ cpuPercent: 10, rssBytes: rss, diskBytes: null, outputBytes: 0, tokensIn: null, tokensOut: null, sampledAt: new Date().toISOString() });

describe('operations/recordUsage through JobStore.recordUsage', function () {
  this.timeout(60_000);
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((b, s) => {
    bed = b;
    store = s;
  });

  it('writes significant changes only', async () => {
    const job = await store.create(sampleJob());
    const file = join(store.jobDir(job.id), 'job.json');
    const first = await store.recordUsage(job.id, usage(100 * 1024 * 1024), usageChanged);
    assert.equal(first.usage?.rssBytes, 100 * 1024 * 1024);
    const text = readFileSync(file, 'utf8');
    const mtime = statSync(file).mtimeMs;
    await store.recordUsage(job.id, usage(103 * 1024 * 1024), usageChanged);
    assert.equal(readFileSync(file, 'utf8'), text, '3 % more memory: nothing written');
    assert.equal(statSync(file).mtimeMs, mtime);
    await store.recordUsage(job.id, usage(120 * 1024 * 1024), usageChanged);
    assert.equal((await store.read(job.id)).usage?.rssBytes, 120 * 1024 * 1024);
  });

  it('races another process\'s locked writes without losing either', async () => {
    const job = await store.create(sampleJob());
    const child = bed.spawnFixture('increment', [job.id, '100']);
    let written = 0;
    for (let i = 1; child.exitCode === null && i < 2000; i++) {
      // Every write a significant change (the disk figure comes and goes), numbered by tokensIn.
      await store.recordUsage(job.id, { ...usage(100 * 1024 * 1024), diskBytes: i % 2 ? 4096 : null, tokensIn: i }, usageChanged);
      written = i;
    }
    assert.equal((await exited(child)).code, 0);
    const final = await store.read(job.id);
    assert.equal(final.recoveries, 100, 'every increment of the other process is kept');
    assert.ok(written > 1, 'the writes interleaved');
    assert.equal(final.usage?.tokensIn, written, 'the last figures are kept');
  });
});
