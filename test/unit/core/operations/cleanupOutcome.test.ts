/** What an unfinished cleanup means, said once for the CLI and the window. */
import * as assert from 'node:assert/strict';
import { cleanupShortfall } from '../../../../src/core/operations/cleanupOutcome';
import type { Cleanup } from '../../../../src/core/store/schema';

function cleanup(fields: Partial<Cleanup>): Cleanup {
  return {
    phase: 'incomplete',
    remaining: ['worktree'],
    stage: null,
    failures: 1,
    nextAttemptAt: null,
    lastError: null,
    needsAttention: false,
    holders: [],
    deleteBranch: false,
    fingerprint: null,
    branchOutcome: null,
    requestedAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    ...fields,
  };
}

describe('cleanup outcome', () => {
  it('is nothing for no cleanup or a complete one', () => {
    assert.equal(cleanupShortfall(null, 'agent a1b2c3'), null);
    assert.equal(cleanupShortfall(cleanup({ phase: 'complete', remaining: [] }), 'agent a1b2c3'), null);
  });

  it('says what waits for the person before what the scheduler retries', () => {
    assert.deepEqual(cleanupShortfall(cleanup({ awaitingConsent: true, lastError: '3 files over the archive limit' }), 'agent a1b2c3'), {
      kind: 'awaiting-consent',
      sentence: 'Cleanup of agent a1b2c3 stopped before removing anything: 3 files over the archive limit',
    });
    assert.deepEqual(cleanupShortfall(cleanup({ stage: 'removing', lastError: 'held by pid 42' }), '"Fix the build"'), {
      kind: 'incomplete',
      sentence: 'Cleanup of "Fix the build" is incomplete at removing: held by pid 42',
    });
    assert.equal(cleanupShortfall(cleanup({}), 'agent a1b2c3')?.sentence, 'Cleanup of agent a1b2c3 is incomplete at an unknown stage: unknown error');
  });

  it('says "nothing was removed" once: the capture\'s stop begins with it too', () => {
    const s = cleanupShortfall(cleanup({ awaitingConsent: true, lastError: 'Nothing was removed: 3 files over the archive limit.' }), 'agent a1b2c3')!.sentence;
    assert.equal(s, 'Cleanup of agent a1b2c3 stopped before removing anything: 3 files over the archive limit');
  });

  it('ends no sentence mid-way: an error\'s own full stop is dropped, as every door continues the sentence', () => {
    const s = cleanupShortfall(cleanup({ stage: 'capturing', lastError: 'could not capture the worktree: Could not write the evidence patch.' }), 'agent a1b2c3')!.sentence;
    assert.equal(s, 'Cleanup of agent a1b2c3 is incomplete at capturing: could not capture the worktree: Could not write the evidence patch');
    assert.doesNotMatch(`${s}; a background coordinator will retry it.`, /\.;/);
  });
});
