/** review.json beside the agent's record: written under its own lock, durably, and never lost to the record's writers. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JobStore } from '../../../../src/core/store';
import { newCommentId, readReview, REVIEW_FILE, updateReview, type ReviewComment } from '../../../../src/core/store/reviewFile';
import { sampleJob, useTestBed } from './helpers';

function comment(body: string): ReviewComment {
  return { id: newCommentId(), path: 'README.md', line: 1, body, createdAt: new Date().toISOString(), sentAt: null, sentToGeneration: null };
}

describe('store/reviewFile', () => {
  let store!: JobStore;
  useTestBed((_bed, fresh) => (store = fresh));

  // Bug 60: each write of the record swept every temp file in the job folder, the review's included,
  // between the review's write of its temp file and its rename: the comment a person typed was lost
  // ("ENOENT … rename"), whenever a usage sample or the worker wrote the record at that moment.
  it('keeps every comment added while the agent\'s record is written over and over', async () => {
    const job = await store.create(sampleJob());
    let adding = true;
    let recordWrites = 0;
    const writeRecord = async (): Promise<void> => {
      while (adding) {
        await store.update(job.id, () => undefined);
        recordWrites++;
      }
    };
    const writers = [writeRecord(), writeRecord()];
    const bodies = Array.from({ length: 40 }, (_, i) => `comment ${i}`);
    try {
      for (const body of bodies) await updateReview(store, job.id, (r) => ({ ...r, comments: [...r.comments, comment(body)] }));
    } finally {
      adding = false;
      await Promise.all(writers);
    }
    assert.ok(recordWrites > bodies.length, `the record was written throughout (${recordWrites} writes)`);
    assert.deepEqual((await readReview(store, job.id)).comments.map((c) => c.body), bodies);
  });

  it('sweeps what a crashed review write left, under its own lock, and leaves the record\'s temp files to the record\'s lock', async () => {
    const job = await store.create(sampleJob());
    const dir = store.jobDir(job.id);
    const reviewLeftover = path.join(dir, `.tmp-${REVIEW_FILE}.12345.abcd`);
    const recordInFlight = path.join(dir, '.tmp-job.json.12345.abcd');
    fs.writeFileSync(reviewLeftover, '{"half": ');
    fs.writeFileSync(recordInFlight, '{"half": ');
    await updateReview(store, job.id, (r) => ({ ...r, comments: [comment('one')] }));
    assert.equal(fs.existsSync(reviewLeftover), false, 'the review\'s leftover is gone');
    assert.equal(fs.existsSync(recordInFlight), true, 'a record write in progress is not the review\'s to touch');
    assert.deepEqual((await readReview(store, job.id)).comments.map((c) => c.body), ['one']);
  });
});
