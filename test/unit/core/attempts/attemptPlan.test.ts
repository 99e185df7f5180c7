/** The pure rules of attempts: profiles dealt round-robin, bad counts refused, "in common" as documented, when a check is due. */
import * as assert from 'node:assert/strict';
import { MAX_ATTEMPTS, newGroupId, profilesForAttempts } from '../../../../src/core/attempts/attemptPlan';
import { commonLines } from '../../../../src/core/attempts/compare';
import { needsAutomaticCheck } from '../../../../src/core/scheduler/automaticChecks';
import { JOB_ID_PATTERN } from '../../../../src/core/store/schema';
import { sampleRecord } from '../store/helpers';

describe('attempts: plan, lines in common, automatic check', () => {
  it('deals profiles round-robin in the order given', () => {
    assert.deepEqual(profilesForAttempts(3, ['claude', 'codex']), ['claude', 'codex', 'claude']);
    assert.deepEqual(profilesForAttempts(2, []), [undefined, undefined]);
    assert.deepEqual(profilesForAttempts(4, ['a', 'b', 'c', 'd']), ['a', 'b', 'c', 'd']);
  });

  it('refuses 0, more than 16, fractions and more profiles than attempts as usage errors', () => {
    for (const n of [0, -1, MAX_ATTEMPTS + 1, 1.5, Number.NaN]) assert.throws(() => profilesForAttempts(n, []), { kind: 'usage' });
    assert.throws(() => profilesForAttempts(1, ['a', 'b']), { kind: 'usage', message: '2 profiles were given for 1 attempt; give at most one profile per attempt.' });
    assert.equal(profilesForAttempts(MAX_ATTEMPTS, []).length, 16);
  });

  it('makes group ids shaped like job ids', () => {
    for (let i = 0; i < 50; i++) assert.match(newGroupId(), JOB_ID_PATTERN);
  });

  it('counts a line as common when the same file of another attempt adds it (trimmed, blank ignored), once per file', () => {
    const lines = new Map([
      ['a', new Map([['x.ts', ['  const x = 1;', '', 'only a', 'const x = 1;']], ['y.ts', ['shared']]])],
      ['b', new Map([['x.ts', ['const x = 1;\t', '']], ['z.ts', ['shared']]])],
      ['c', new Map([['y.ts', ['shared']]])],
    ]);
    assert.deepEqual(commonLines(lines), [
      { path: 'x.ts', text: 'const x = 1;', attempts: ['a', 'b'] },
      { path: 'y.ts', text: 'shared', attempts: ['a', 'c'] },
    ]);
  });

  it('runs the check of an ended attempt once per execution; never of a single agent, a cleaned or a running one', () => {
    const now = '2026-01-01T00:00:10.000Z';
    const attempt = sampleRecord('abc123', {}, now);
    attempt.group = { id: 'grp12345', title: 't', index: 1, size: 2 };
    attempt.worktree = '/tmp/w';
    attempt.lifecycle = { ...attempt.lifecycle, state: 'completed', endedAt: now };
    assert.equal(needsAutomaticCheck(attempt), true);
    assert.equal(needsAutomaticCheck({ ...attempt, group: null }), false, 'a single agent is checked on demand only');
    assert.equal(needsAutomaticCheck({ ...attempt, lifecycle: { ...attempt.lifecycle, state: 'running' } }), false);
    assert.equal(needsAutomaticCheck({ ...attempt, lifecycle: { ...attempt.lifecycle, state: 'cancelled' } }), false);
    const done = { state: 'passed' as const, exitCode: 0, durationMs: 5, summary: '', runner: null };
    assert.equal(needsAutomaticCheck({ ...attempt, check: { ...done, at: '2026-01-01T00:00:11.000Z' } }), false);
    assert.equal(needsAutomaticCheck({ ...attempt, check: { ...done, at: '2026-01-01T00:00:09.000Z' } }), true, 'a retry ended since the last check');
    const orphanedRun = { ...done, state: 'running' as const, at: now, runner: { pid: process.pid, startTime: 1, bootId: 'x' } };
    assert.equal(needsAutomaticCheck({ ...attempt, check: orphanedRun }), true, 'its runner is gone');
  });
});
