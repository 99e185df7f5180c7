import * as assert from 'node:assert/strict';
import { hiddenAsCleaned } from '../../../../src/ui/tree/cleanedFilter';
import { lookOf } from '../../../../src/ui/tree/presentation';
import type { JobRecord } from '../../../../src/core/store/schema';
import { sampleRecord } from '../../core/store/helpers';

const HOUR = 3_600_000;

function cleanedAt(at: number, phase: 'complete' | 'incomplete' = 'complete'): JobRecord {
  const job = sampleRecord('abc123', {}, new Date(at - HOUR).toISOString());
  const iso = new Date(at).toISOString();
  job.cleanup = {
    phase, remaining: [], stage: null, failures: 0, nextAttemptAt: null, lastError: null, needsAttention: false, holders: [],
    deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: iso, updatedAt: iso,
  };
  return job;
}

describe('tree: cleaned agents leave after paddock.showCleanedFor', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');

  it('hides an agent cleaned longer ago than the setting, shows a newer one, and shows all when asked', () => {
    assert.equal(hiddenAsCleaned(cleanedAt(now - 25 * HOUR), now, 24, false), true);
    assert.equal(hiddenAsCleaned(cleanedAt(now - 23 * HOUR), now, 24, false), false);
    assert.equal(hiddenAsCleaned(cleanedAt(now - 25 * HOUR), now, 24, true), false, 'Show Cleaned Agents');
    assert.equal(hiddenAsCleaned(cleanedAt(now - 1000), now, 0, false), true, '0 hours: at once');
  });

  it('never hides an agent whose cleanup is not complete, or one never cleaned', () => {
    assert.equal(hiddenAsCleaned(cleanedAt(now - 100 * HOUR, 'incomplete'), now, 24, false), false);
    assert.equal(hiddenAsCleaned(sampleRecord('abc123', {}, new Date(now - 100 * HOUR).toISOString()), now, 24, false), false);
  });
});

describe('tree: where the work stands, in the row', () => {
  it('appends the standing to the state words, and says a landing even without figures', () => {
    const job = sampleRecord('abc123', {}, new Date().toISOString());
    job.lifecycle.state = 'completed';
    const standing = { baseName: 'main', ahead: 3, behind: 2, files: 4, insertions: 120, deletions: 8, uncommittedFiles: 0, merged: false };
    assert.equal(lookOf(job, Date.now(), { standing }).description, 'completed · 3 commits ahead, 2 behind main · 4 files +120 −8');
    assert.equal(lookOf(job, Date.now()).description, 'completed', 'not computed yet: nothing invented');
    job.landing = { kind: 'pr', into: 'origin/paddock/abc123', commit: null, url: 'https://gitlab.example/g/p/-/merge_requests/7', at: new Date().toISOString() };
    assert.equal(lookOf(job, Date.now()).description, 'completed · pull request #7 open');
  });
});
