/** review.json beside the agent's record: written under its own lock, durably, and never lost to the record's writers. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JobStore } from '../../../../src/core/store';
import { newCommentId, readReview, REVIEW_FILE, updateReview, type ReviewComment, type ReviewHome } from '../../../../src/core/store/reviewFile';
import { fillDisk, mountTmpfsOrSkip } from './fullDisk';
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

  it('says a review it cannot read or save in words, never errno text, and leaves it as it is', async function () {
    const job = await store.create(sampleJob());
    const file = path.join(store.jobDir(job.id), REVIEW_FILE);
    const refusal = async (what: string, run: () => Promise<unknown>): Promise<string> => {
      const err = await run().then(
        () => assert.fail(`${what}: refused`),
        (e: Error) => e,
      );
      assert.doesNotMatch(err.message, /\bE[A-Z]{3,}\b|illegal operation/, `${what}: ${err.message}`);
      return err.message;
    };
    fs.mkdirSync(file);
    assert.match(await refusal('a folder in its place', () => readReview(store, job.id)), /Cannot read the review of agent \w+ \(.*\): it is a folder, not a file; it was left as it is/);
    fs.rmdirSync(file);
    execFileSync('mkfifo', [file]);
    assert.match(await refusal('a FIFO in its place', () => updateReview(store, job.id, (r) => r)), /it is not a regular file \(a FIFO\)/);
    fs.rmSync(file);

    // A full disk under the job folder: the write fails, the review on disk is the one before.
    await updateReview(store, job.id, (r) => ({ ...r, comments: [comment('kept')] }));
    const before = fs.readFileSync(file, 'utf8');
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-review-disk-'));
    mountTmpfsOrSkip(this, disk, 'size=256k');
    try {
      const moved = path.join(disk, 'job');
      fs.cpSync(store.jobDir(job.id), moved, { recursive: true });
      const onDisk: ReviewHome = { jobDir: () => moved };
      fillDisk(disk);
      assert.match(await refusal('a full disk', () => updateReview(onDisk, job.id, (r) => ({ ...r, comments: [...r.comments, comment('lost')] }))), /the disk is full|the review is as it was/);
      assert.equal(fs.readFileSync(path.join(moved, REVIEW_FILE), 'utf8'), before, 'the review is as it was');
    } finally {
      execFileSync('umount', ['-l', disk]);
      fs.rmSync(disk, { recursive: true, force: true });
    }
  });
});
