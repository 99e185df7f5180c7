/** A figure the record's schema refuses is dropped alone: the agent's other figures are still recorded. */
import * as assert from 'node:assert/strict';
import type { JobStore, Usage } from '../../../../src/core/store';
import { usageChanged } from '../../../../src/core/usage/significance';
import { validFigures } from '../../../../src/core/usage/validFigures';
import { sampleJob, useTestBed } from '../store/helpers';

describe('usage/validFigures', function () {
  this.timeout(30_000);
  let store!: JobStore;
  useTestBed((_bed, s) => (store = s));

  it('nulls each figure the schema refuses and keeps the others, so the record takes them', async () => {
    const sampled: Usage = {
      cpuPercent: 42.5,
      rssBytes: 100 * 1024 * 1024,
      diskBytes: 4096,
      outputBytes: 10,
      tokensIn: 2 * 5e15, // a sum past the largest safe integer
      tokensOut: 5000.5,
      costUsd: -1,
      sampledAt: new Date().toISOString(),
    };
    const valid = validFigures(sampled);
    assert.deepEqual(valid, { ...sampled, tokensIn: null, tokensOut: null, costUsd: null });
    assert.deepEqual(validFigures({ ...sampled, cpuPercent: Number.NaN, rssBytes: -1, tokensIn: 1, tokensOut: 2, costUsd: 0.5 }), {
      ...sampled,
      cpuPercent: null,
      rssBytes: null,
      tokensIn: 1,
      tokensOut: 2,
      costUsd: 0.5,
    });
    const job = await store.create(sampleJob());
    await assert.rejects(store.recordUsage(job.id, sampled, usageChanged), 'the whole usage is refused as it was sampled');
    const recorded = await store.recordUsage(job.id, valid, usageChanged);
    assert.equal(recorded.usage?.rssBytes, 100 * 1024 * 1024, 'the valid figures are recorded');
  });
});
