import * as assert from 'node:assert/strict';
import { migrateRecord } from '../../../../src/core/store';

describe('migrations', () => {
  it('lifts an old record step by step to the current version', () => {
    const steps = {
      1: (r: Record<string, unknown>) => ({ ...r, renamed: r.old, old: undefined }),
      2: (r: Record<string, unknown>) => ({ ...r, added: true }),
    };
    const result = migrateRecord({ schemaVersion: 1, old: 'x' }, steps, 3);
    assert.deepEqual(result, { ok: true, from: 1, value: { schemaVersion: 3, renamed: 'x', old: undefined, added: true } });
  });

  it('refuses a record from a newer Paddock, one without a version, and a gap in the steps', () => {
    assert.deepEqual(migrateRecord({ schemaVersion: 9 }, {}, 1), {
      ok: false,
      reason: 'it was written by a newer Paddock (schema 9; this one reads up to 1)',
    });
    assert.equal(migrateRecord({}, {}, 1).ok, false);
    assert.equal(migrateRecord([1], {}, 1).ok, false);
    assert.deepEqual(migrateRecord({ schemaVersion: 1 }, {}, 2), { ok: false, reason: 'no migration from schema 1 to 2' });
  });
});
