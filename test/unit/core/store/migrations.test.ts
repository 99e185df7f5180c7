import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupWaitsForPerson, consentBlocker } from '../../../../src/core/operations/rules';
import { JobStore, migrateRecord } from '../../../../src/core/store';
import { sampleJob, useTestBed } from './helpers';

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

  describe('what an earlier version wrote within this schema version', () => {
    let store!: JobStore;
    useTestBed((_bed, fresh) => (store = fresh));

    /** A cleanup record as it was left on disk, over a real store's job. */
    async function withCleanupOnDisk(cleanup: Record<string, unknown>): Promise<string> {
      const job = await store.create(sampleJob());
      await store.transition(job.id, 'cancelled');
      const file = path.join(store.jobDir(job.id), 'job.json');
      const record = JSON.parse(fs.readFileSync(file, 'utf8'));
      record.cleanup = {
        phase: 'incomplete', remaining: ['worktree', 'branch'], stage: 'capturing', failures: 5, nextAttemptAt: null, needsAttention: true,
        holders: [], deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: record.createdAt, updatedAt: record.createdAt,
        ...cleanup,
      };
      fs.writeFileSync(file, JSON.stringify(record));
      return job.id;
    }

    // Found in a store kept across versions: before awaitingRetry existed, a capture failing the same
    // way every time was recorded as waiting for consent, and the window offered Clean Up Anyway
    // ("files will be LOST") for a cleanup where nothing would be lost.
    it('a capture stuck the same way every time, recorded as waiting for consent, waits for a retry', async () => {
      const stuck = await withCleanupOnDisk({
        lastError: "git add failed: error: 'vendor/lib/' does not have a commit checked out; it failed the same way 5 times, so it waits for you to retry it",
        awaitingConsent: true,
      });
      const job = await store.read(stuck);
      assert.equal(job.cleanup?.awaitingConsent, false);
      assert.equal(job.cleanup?.awaitingRetry, true);
      assert.equal(cleanupWaitsForPerson(job.cleanup), true);
      assert.match(consentBlocker(job) ?? '', /is not waiting for a decision/);
      const listed = (await store.list()).find((e) => e.ok && e.job.id === stuck);
      assert.equal(listed?.ok && listed.job.cleanup?.awaitingRetry, true, 'a listing reads it the same way');
      // Its next write keeps this version's form.
      await store.update(stuck, (j) => j);
      assert.equal(JSON.parse(fs.readFileSync(path.join(store.jobDir(stuck), 'job.json'), 'utf8')).cleanup.awaitingRetry, true);
    });

    // Bug 68: before typedPromptGeneration, a retry kept the start's prompt in settings.typedPrompt
    // (only generation 1 typed it); this version types the record's typedPrompt in any generation.
    it('a typed prompt of an earlier generation, as the previous version left it through a retry, is read as none', async () => {
      const job = await store.create({ ...sampleJob(), settings: { ...sampleJob().settings, typedPrompt: 'the start' } });
      assert.equal((await store.read(job.id)).settings.typedPrompt, 'the start', 'the start\'s own generation types it');
      await store.transition(job.id, 'cancelled');
      await store.beginGeneration(job.id);
      const file = path.join(store.jobDir(job.id), 'job.json');
      assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).settings.typedPrompt, 'the start', 'on disk in the old shape');
      const read = await store.read(job.id);
      assert.equal(read.lifecycle.generation, 2);
      assert.equal(read.settings.typedPrompt, undefined);
      const listed = (await store.list()).find((e) => e.ok && e.job.id === job.id);
      assert.equal(listed?.ok && listed.job.settings.typedPrompt, undefined, 'a listing reads it the same way');

      // This version's retry marks its prompt as its generation's: kept.
      await store.update(job.id, (j) => ({ ...j, settings: { ...j.settings, typedPrompt: 'the retry', typedPromptGeneration: 2 } }));
      assert.equal((await store.read(job.id)).settings.typedPrompt, 'the retry');
    });

    it('a cleanup waiting for consent to lose files still does', async () => {
      const consent = await withCleanupOnDisk({ lastError: 'capture needs consent: 2 files over the archive limit would be lost (big.bin 300 MB)', awaitingConsent: true });
      const job = await store.read(consent);
      assert.equal(job.cleanup?.awaitingConsent, true);
      assert.ok(!job.cleanup?.awaitingRetry);
      assert.equal(consentBlocker(job), null);
    });
  });
});
