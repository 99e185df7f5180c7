/**
 * The detail's words on what an ended agent left running, derived from the record's fields in one
 * place (leftoverWords.ts) instead of rewritten by regular expressions over the stored detail: every
 * state the record goes through, and a record written before `leftoversFate` shown as it was written.
 */
import * as assert from 'node:assert/strict';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import type { JobRecord, Leftover, LeftoversFate } from '../../../../src/core/store';
import { sampleRecord } from './helpers';

const ender = { pid: 4321, startTime: 99, bootId: 'b00t' };
const daemon = (pid: number): Leftover => ({ pid, command: 'sleep 600', startTime: 5, bootId: 'b00t' });

function ended(parts: { fate?: LeftoversFate | null; leftovers?: Leftover[]; ender?: JobRecord['leftoversEnder']; detail?: string | null; state?: JobRecord['lifecycle']['state'] }): JobRecord {
  const job = sampleRecord('abc123def');
  return {
    ...job,
    lifecycle: { ...job.lifecycle, state: parts.state ?? 'completed', exitCode: 0, detail: parts.detail === undefined ? 'exit 0' : parts.detail },
    // Of the generation it ends (leftoverWords.ts's currentFate), unless the case says otherwise.
    ...(parts.fate !== undefined ? { leftoversFate: parts.fate && { generation: job.lifecycle.generation, ...parts.fate } } : {}),
    ...(parts.leftovers ? { leftovers: parts.leftovers } : {}),
    ...(parts.ender !== undefined ? { leftoversEnder: parts.ender } : {}),
  };
}

describe('store/leftoverWords: the detail on what an ended agent left running', () => {
  it('while its worker ends them, once it is found gone, and once the lead pass is done with it', () => {
    assert.equal(lifecycleDetail(ended({ fate: { count: 2 }, leftovers: [daemon(10), daemon(11)], ender })), 'exit 0; ending 2 processes it left running');
    const gone = { ...ender, gone: true };
    assert.equal(lifecycleDetail(ended({ fate: { count: 2 }, leftovers: [daemon(10), daemon(11)], ender: gone })), 'exit 0; left 2 processes running');
    // Nothing listed still runs, but the ender is not done with until the lead pass's marker scan finds none either.
    assert.equal(lifecycleDetail(ended({ fate: { count: 1 }, leftovers: [], ender: gone })), 'exit 0; left 1 process running');
    assert.equal(lifecycleDetail(ended({ fate: { count: 1 }, leftovers: [], ender: null })), 'exit 0; the 1 process it left running exited');
  });

  it('left to the person: counts what still runs, and says when they have all exited', () => {
    assert.equal(lifecycleDetail(ended({ fate: { count: 2 }, leftovers: [daemon(10), daemon(11)] })), 'exit 0; left 2 processes running');
    assert.equal(lifecycleDetail(ended({ fate: { count: 2 }, leftovers: [daemon(10)] })), 'exit 0; left 1 process running');
    assert.equal(lifecycleDetail(ended({ fate: { count: 2 }, leftovers: [] })), 'exit 0; the 2 processes it left running exited');
  });

  it('ended by its worker (with what outlived its SIGKILL), or by Stop', () => {
    assert.equal(lifecycleDetail(ended({ fate: { count: 1, outcome: 'ended' } })), 'exit 0; ended 1 process it left running');
    assert.equal(lifecycleDetail(ended({ fate: { count: 1, outcome: 'ended', survivors: '77 (sleep 0.2)' }, leftovers: [daemon(77)] })), 'exit 0; ended 1 process it left running; still running: 77 (sleep 0.2)');
    assert.equal(lifecycleDetail(ended({ fate: { count: 0, outcome: 'ended', survivors: '77 (sleep 0.2)' }, leftovers: [daemon(77)] })), 'exit 0; still running: 77 (sleep 0.2)');
    assert.equal(lifecycleDetail(ended({ fate: { count: 3, outcome: 'stopped' }, leftovers: [] })), 'exit 0; stopped 3 processes it left running');
  });

  // Bug 148 (bug 147's class): what outlived the worker's SIGKILL was said still running for good, after it had exited.
  it('says what outlived its SIGKILL still runs only while the listing has it, then that it exited', () => {
    const survivors = '77 (sleep 600)';
    assert.equal(lifecycleDetail(ended({ fate: { count: 2, outcome: 'ended', survivors }, leftovers: [daemon(77)] })), 'exit 0; ended 2 processes it left running; still running: 77 (sleep 600)');
    assert.equal(lifecycleDetail(ended({ fate: { count: 2, outcome: 'ended', survivors }, leftovers: [] })), 'exit 0; ended 2 processes it left running; since exited: 77 (sleep 600)');
    assert.equal(lifecycleDetail(ended({ fate: { count: 0, outcome: 'ended', survivors } })), 'exit 0; since exited: 77 (sleep 600)');
  });

  it('says nothing more without a fate, or of an execution that is not over; the stored detail itself is never changed', () => {
    // An orphan's listing (a reader found its worker gone): the row says what runs; the detail is the reader's.
    assert.equal(lifecycleDetail(ended({ leftovers: [daemon(10)], detail: 'worker 5 is gone', state: 'orphaned' })), 'worker 5 is gone');
    // Words an earlier version wrote into the detail: read from disk, they are lifted into leftoversFate
    // (migrations.ts; legacyLeftoverWords.test.ts); a record in memory without it is shown as it is, never said twice.
    const old = ended({ leftovers: [daemon(10)], ender: { ...ender, gone: true }, detail: 'exit 0; ending 1 process it left running' });
    assert.equal(lifecycleDetail(old), 'exit 0; ending 1 process it left running');
    assert.equal(lifecycleDetail(ended({ fate: { count: 1 }, leftovers: [daemon(10)], state: 'running', detail: null })), null);
    assert.equal(lifecycleDetail(ended({ fate: { count: 1 }, leftovers: [daemon(10)], detail: null })), 'left 1 process running');
    const job = ended({ fate: { count: 2 }, leftovers: [daemon(10)] });
    lifecycleDetail(job);
    assert.equal(job.lifecycle.detail, 'exit 0');
  });

  it("says nothing of a fate of another generation, or of one naming none (an older Paddock's retry kept it: bug 146)", () => {
    const gen2 = (fate: LeftoversFate): JobRecord => {
      const job = ended({ fate, leftovers: [] });
      return { ...job, lifecycle: { ...job.lifecycle, generation: 2 } };
    };
    assert.equal(lifecycleDetail(gen2({ count: 2, outcome: 'stopped', generation: 1 })), 'exit 0');
    assert.equal(lifecycleDetail(gen2({ count: 2, outcome: 'stopped', generation: 2 })), 'exit 0; stopped 2 processes it left running');
    const unplaced = ended({ fate: null, leftovers: [] });
    assert.equal(lifecycleDetail({ ...unplaced, leftoversFate: { count: 1 } }), 'exit 0');
  });
});
