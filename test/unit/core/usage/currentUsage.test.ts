/** One rule for which recorded figures still hold, used by every view: CPU and memory while the agent runs, disk while its worktree is there. */
import * as assert from 'node:assert/strict';
import type { JobRecord, Usage } from '../../../../src/core/store';
import { currentUsage, hasUsageToSample } from '../../../../src/core/usage/currentUsage';

const usage: Usage = { cpuPercent: 12, rssBytes: 1024, diskBytes: 4096, outputBytes: 10, tokensIn: 5, tokensOut: 6, costUsd: null, sampledAt: new Date().toISOString() };

function job(state: JobRecord['lifecycle']['state'], worktree: string | null, cleanup?: NonNullable<JobRecord['cleanup']>['phase']): JobRecord {
  return { lifecycle: { state }, worktree, cleanup: cleanup ? { phase: cleanup } : null, usage } as unknown as JobRecord;
}

describe('usage/currentUsage', () => {
  it('CPU and memory only while the agent runs; the worktree\'s size only while it is there', () => {
    assert.deepEqual(currentUsage(job('running', '/w')), usage);
    assert.deepEqual(currentUsage(job('cancelled', '/w')), { ...usage, cpuPercent: null, rssBytes: null });
    assert.deepEqual(currentUsage(job('completed', '/w', 'complete')), { ...usage, cpuPercent: null, rssBytes: null, diskBytes: null });
    assert.equal(currentUsage(job('completed', '/w', 'removing'))?.diskBytes, null);
    assert.equal(currentUsage(job('completed', '/w', 'incomplete'))?.diskBytes, 4096, 'a cleanup that stopped short left the worktree');
    assert.equal(currentUsage({ ...job('running', '/w'), usage: null }), null);
  });

  it('an ended agent whose worktree is there has figures to sample; one whose worktree is gone has none', () => {
    assert.equal(hasUsageToSample(job('completed', '/w')), true);
    assert.equal(hasUsageToSample(job('completed', '/w', 'complete')), false);
    assert.equal(hasUsageToSample(job('queued', null)), false);
    assert.equal(hasUsageToSample(job('running', null)), true);
  });
});
