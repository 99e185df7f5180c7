/** When a finished check speaks for the agent's work (src/core/check/checkCurrency.ts), and how an out-of-date one is said. */
import * as assert from 'node:assert/strict';
import { checkInWords } from '../../../../src/core/attempts/compareReport';
import { checkOutOfDate } from '../../../../src/core/check/checkCurrency';
import type { Check } from '../../../../src/core/store/schema';
import { sampleRecord } from '../store/helpers';

describe('check currency', () => {
  const ended = '2026-01-01T00:00:10.000Z';
  const job = sampleRecord('abcd1234');
  const finished = (state: Check['state'], at: string): Check => ({ state, exitCode: state === 'failed' ? 1 : 0, durationMs: 5, at, summary: '', runner: null });
  const withCheck = (check: Check | null, endedAt: string | null = ended) => ({ ...job, check, lifecycle: { ...job.lifecycle, state: 'completed' as const, endedAt } });

  it('a pass or failure recorded before the last run ended, or while a new run is not over, is out of date; one after it, or a check under way, is not', () => {
    assert.equal(checkOutOfDate(withCheck(finished('passed', '2026-01-01T00:00:09.000Z'))), true, 'retried after the check');
    assert.equal(checkOutOfDate(withCheck(finished('failed', '2026-01-01T00:00:09.000Z'))), true);
    assert.equal(checkOutOfDate(withCheck(finished('passed', '2026-01-01T00:00:11.000Z'))), false);
    assert.equal(checkOutOfDate(withCheck(finished('running', '2026-01-01T00:00:09.000Z'))), false, 'a check under way is judged by its runner');
    for (const state of ['queued', 'starting', 'running', 'waiting'] as const) {
      const again = { ...job, check: finished('passed', '2026-01-01T00:00:11.000Z'), lifecycle: { ...job.lifecycle, state, generation: 2, endedAt: null } };
      assert.equal(checkOutOfDate(again), true, `a retry ${state}: the check was of the run before`);
    }
    assert.equal(checkOutOfDate(withCheck(finished('passed', '2026-01-01T00:00:09.000Z'), null)), false, 'no end recorded');
    assert.equal(checkOutOfDate(withCheck(null)), false);
  });

  it('an out-of-date result is said as such, the current one as before', () => {
    assert.equal(checkInWords(finished('passed', ended), true), 'check out of date (it passed before the last run)');
    assert.equal(checkInWords(finished('failed', ended), true), 'check out of date (it failed before the last run)');
    assert.equal(checkInWords(finished('passed', ended), false), '✓ check 0 s');
    assert.equal(checkInWords(finished('queued', ended), true), 'check queued');
  });
});
