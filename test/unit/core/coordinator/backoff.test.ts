import * as assert from 'node:assert/strict';
import { BACKOFF_CAP_MS, backoffDelayMs, dueTime, MAX_DELAY_MS } from '../../../../src/core/coordinator/backoff';
import { capacityOf, queueOrder } from '../../../../src/core/coordinator/capacity';
import { resolveSettings } from '../../../../src/core/coordinator/settings';
import { planStart, resumeCommand } from '../../../../src/core/coordinator/startPlan';
import { branchNameFor, worktreePathFor } from '../../../../src/core/coordinator/worktreePath';
import type { JobRecord } from '../../../../src/core/store';

describe('coordinator policies', () => {
  it('backs off min(60 s, 1 s·2^(n−1)) within ±10 % jitter', () => {
    for (const [n, base] of [[1, 1000], [2, 2000], [3, 4000], [6, 32000], [7, 60000], [40, 60000]] as const) {
      assert.equal(backoffDelayMs(n, () => 0.5), base);
      assert.equal(backoffDelayMs(n, () => 0), Math.round(base * 0.9));
      assert.ok(backoffDelayMs(n, () => 0.9999) <= Math.round(base * 1.1));
    }
    assert.ok(backoffDelayMs(1000, Math.random) <= MAX_DELAY_MS);
  });

  it('never trusts a persisted attempt time beyond 1.1× the cap from now (clock jumps)', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(dueTime(null, now), now);
    assert.equal(dueTime('garbage', now), now);
    assert.equal(dueTime(new Date(now + 5000).toISOString(), now), now + 5000);
    assert.equal(dueTime(new Date(now + 3_600_000).toISOString(), now), now + Math.round(BACKOFF_CAP_MS * 1.1));
  });

  it('counts slots for active agents and unfinished cleanups, and names blockers only when full', () => {
    const job = (id: string, state: string, cleanup?: string, createdAt = '2026-01-01T00:00:00Z') =>
      ({
        id,
        title: id,
        createdAt,
        lifecycle: { state },
        cleanup: cleanup ? { phase: cleanup, stage: 'removing', failures: 2, nextAttemptAt: null, lastError: 'held by pid 1 (x)', needsAttention: false } : null,
      }) as unknown as JobRecord;
    const jobs = [job('aaaaaa', 'running'), job('bbbbbb', 'completed', 'incomplete'), job('cccccc', 'completed', 'complete'), job('dddddd', 'queued')].map((j) => ({ id: j.id, ok: true as const, job: j }));
    assert.deepEqual(capacityOf(jobs, 3).blockedBy, []);
    const full = capacityOf(jobs, 2);
    assert.equal(full.used, 2);
    assert.equal(full.queued, 1);
    assert.deepEqual(full.blockedBy.map((b) => b.id), ['bbbbbb']);
    const order = queueOrder([job('zzzzzz', 'queued', undefined, '2026-01-01T00:00:01Z'), job('yyyyyy', 'queued', undefined, '2026-01-01T00:00:00Z')]);
    assert.deepEqual(order.map((j) => j.id), ['yyyyyy', 'zzzzzz']);
  });

  it('falls back to defaults for settings of the wrong shape', () => {
    const s = resolveSettings(() => ({ maxConcurrent: 0, worktreeRoot: '/w', stopGraceSeconds: -1 }));
    assert.equal(s.maxConcurrent, 4);
    assert.equal(s.worktreeRoot, '/w');
    assert.equal(s.stopGraceSeconds, 10);
  });

  it('plans a start from a profile or an explicit command', () => {
    const settings = resolveSettings(() => ({ defaultProfile: 'shell' }));
    const fromProfile = planStart({ repo: '/r', prompt: 'do it' }, settings, { SHELL: '/bin/sh' });
    assert.deepEqual(fromProfile.command, ['/bin/sh']);
    assert.equal(fromProfile.profileName, 'shell');
    assert.equal(fromProfile.title, 'do it');
    const explicit = planStart({ repo: '/r', command: ['make', 'test'] }, settings, {});
    assert.deepEqual(explicit.command, ['make', 'test']);
    assert.equal(explicit.profileName, null);
    assert.equal(explicit.settings.resumeArgs, null);
    assert.equal(explicit.base, 'HEAD');
    assert.deepEqual(resumeCommand(['claude', 'fix'], ['--continue']), ['claude', '--continue']);
    assert.deepEqual(resumeCommand(['make'], null), ['make']);
    // A retry's prompt fills the resume arguments' {prompt}; without one, the placeholder goes with its "--".
    assert.deepEqual(resumeCommand(['claude', 'fix'], ['--continue', '--', '{prompt}'], 'Review: a.ts:3 rename'), ['claude', '--continue', '--', 'Review: a.ts:3 rename']);
    assert.deepEqual(resumeCommand(['claude', 'fix'], ['--continue', '--', '{prompt}']), ['claude', '--continue']);
  });

  it('places worktrees and branches by the documented names', () => {
    assert.equal(worktreePathFor('/src/app', 'abc123', null), '/src/app.worktrees/abc123');
    assert.equal(worktreePathFor('/src/app', 'abc123', '/trees'), '/trees/app/abc123');
    assert.equal(branchNameFor('abc123'), 'paddock/abc123');
  });
});
