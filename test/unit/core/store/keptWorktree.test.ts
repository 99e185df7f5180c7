/**
 * A failed launch's kept worktree (bug 132) is said from a field of its own, `keptWorktree`, by the one
 * presenter of the detail (`lifecycleDetail`), as the leftover words are (bug 147): the stored detail
 * keeps only why the launch failed. A record written before the field carries the words in its detail:
 * read, they are lifted into the field and shown as before. Real store in a temp dir.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobStore, type JobRecord } from '../../../../src/core/store';
import { keptWorktreeWords, withKeptWordsLifted } from '../../../../src/core/store/keptWorktree';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { createWithWorktree, useTestBed } from './helpers';

const REASON = 'the process launching it (pid 42) was suspended (SIGSTOP) before its worker started; its slot was given back';
const WHY = 'the agent was ended by another process while its launcher was stopped';

describe('store: the words on a failed launch\'s kept worktree', () => {
  let store!: JobStore;
  useTestBed((_bed, fresh) => (store = fresh));

  async function failedLaunch(): Promise<JobRecord> {
    const job = await createWithWorktree(store);
    await store.transition(job.id, 'starting');
    return store.transition(job.id, 'failed', { detail: REASON });
  }

  const recordFile = (id: string) => path.join(store.jobDir(id), 'job.json');
  const readRaw = (id: string) => JSON.parse(fs.readFileSync(recordFile(id), 'utf8')) as JobRecord;
  const cleaned = (job: JobRecord): JobRecord => ({ ...job, cleanup: { ...(job.cleanup ?? ({} as NonNullable<JobRecord['cleanup']>)), phase: 'complete' } });

  it('are said from keptWorktree after the detail, until Clean Up has removed the worktree', async () => {
    const failed = await failedLaunch();
    const job = await store.update(failed.id, (j) => ({ ...j, keptWorktree: { branch: j.branch!, why: WHY, generation: 1 } }));
    const words = keptWorktreeWords(job.branch!, WHY);
    assert.equal(job.lifecycle.detail, REASON);
    assert.equal(lifecycleDetail(job), `${REASON}; ${words}`);
    assert.equal(lifecycleDetail(cleaned(job)), REASON);
    // Of another generation, or while the agent has not ended: nothing said.
    assert.equal(lifecycleDetail({ ...job, keptWorktree: { ...job.keptWorktree!, generation: 2 } }), REASON);
    assert.equal(lifecycleDetail({ ...job, lifecycle: { ...job.lifecycle, state: 'starting' } }), REASON);
    // A retry runs in the worktree: the words were of the failed launch.
    const retried = await store.beginGeneration(job.id);
    assert.equal(retried.keptWorktree, null);
  });

  it('a record written before the field is read with its words lifted into it, and shown as it was', async () => {
    const failed = await failedLaunch();
    const words = keptWorktreeWords(failed.branch!, WHY);
    const written = `${REASON}; ${words}`;
    fs.writeFileSync(recordFile(failed.id), JSON.stringify({ ...readRaw(failed.id), lifecycle: { ...failed.lifecycle, detail: written } }));
    const job = await store.read(failed.id);
    assert.equal(job.lifecycle.detail, REASON);
    assert.deepEqual(job.keptWorktree, { branch: failed.branch, why: WHY, generation: 1 });
    assert.equal(lifecycleDetail(job), written);
    assert.equal(lifecycleDetail(cleaned(job)), REASON, 'once Clean Up removed the worktree, as before');
    // Its next write stores this version's form.
    await store.update(job.id, (j) => j);
    assert.deepEqual([readRaw(job.id).lifecycle.detail, readRaw(job.id).keptWorktree], [REASON, { branch: failed.branch, why: WHY, generation: 1 }]);
  });

  it('a detail cut at its cap inside the words keeps its reason as far as it went; one cut before it is left as written', async () => {
    const failed = await failedLaunch();
    const words = keptWorktreeWords(failed.branch!, WHY);
    const cut = `${REASON}; ${words}`.slice(0, REASON.length + 2 + words.indexOf(': paddock') + 9);
    fs.writeFileSync(recordFile(failed.id), JSON.stringify({ ...readRaw(failed.id), lifecycle: { ...failed.lifecycle, detail: cut } }));
    const job = await store.read(failed.id);
    assert.equal(job.keptWorktree?.why, WHY);
    assert.equal(lifecycleDetail(job), `${REASON}; ${words}`);
    const early = `${REASON}; its worktree and branch paddock/x`;
    fs.writeFileSync(recordFile(failed.id), JSON.stringify({ ...readRaw(failed.id), lifecycle: { ...failed.lifecycle, detail: early } }));
    const kept = await store.read(failed.id);
    assert.deepEqual([kept.lifecycle.detail, kept.keptWorktree], [early, undefined]);
  });

  it('an old record cut at its 2,000 characters inside the words says them whole, once (bug 166)', async () => {
    const failed = await failedLaunch();
    const words = keptWorktreeWords(failed.branch!, WHY);
    const reason = 'x'.repeat(1800);
    // The old launcher's cap: its words appended to the detail, cut at 2,000 characters.
    const cut = `${reason}; ${words}`.slice(0, 2000);
    fs.writeFileSync(recordFile(failed.id), JSON.stringify({ ...readRaw(failed.id), lifecycle: { ...failed.lifecycle, detail: cut } }));
    const job = await store.read(failed.id);
    assert.equal(job.keptWorktree?.why, WHY);
    // Before: the cut piece of the sentence, then the whole sentence again (2,149 characters).
    assert.equal(lifecycleDetail(job), `${reason}; ${words}`);
  });

  it('wherever the cap cut an old detail inside the words, the lifted detail begins with it and says what comes next once (bug 166)', () => {
    const words = keptWorktreeWords('paddock/abcd1234', WHY);
    const whole = `${REASON}; ${words}`;
    const next = words.slice(words.indexOf(WHY) + WHY.length);
    for (let end = whole.indexOf(' are kept, ') + 11; end <= whole.length; end++) {
      const detail = whole.slice(0, end);
      const record = { id: 'abcd1234', lifecycle: { state: 'failed', generation: 1, detail }, cleanup: null, leftovers: [] } as unknown as JobRecord;
      const shown = lifecycleDetail(withKeptWordsLifted(record))!;
      assert.ok(shown.startsWith(detail), `cut at ${end}: ${shown}`);
      assert.equal(shown.split(next).length, 2, `cut at ${end}: ${shown}`);
      if (end >= whole.length - next.length) assert.equal(shown, whole, `cut at ${end}`);
    }
  });

  it('a field that does not match its schema makes the record unreadable, as any other', async () => {
    const failed = await failedLaunch();
    fs.writeFileSync(recordFile(failed.id), JSON.stringify({ ...readRaw(failed.id), keptWorktree: { branch: 7, why: WHY, generation: 1 } }));
    const entry = await store.tryRead(failed.id);
    assert.ok(!entry.ok && /keptWorktree/.test(entry.reason), JSON.stringify(entry));
  });
});
