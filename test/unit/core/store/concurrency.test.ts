import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { JobStore } from '../../../../src/core/store';
import { exited, sampleJob, TestBed, useTestBed, waitForLine } from './helpers';

describe('store under concurrency and crashes', function () {
  this.timeout(240_000);
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((freshBed, freshStore) => {
    bed = freshBed;
    store = freshStore;
  });

  it('8 processes × 200 locked increments of one record give exactly 1,600', async () => {
    const job = await store.create(sampleJob());
    const children = Array.from({ length: 8 }, () => bed.spawnFixture('increment', [job.id, '200']));
    const stderr = children.map((c) => {
      let text = '';
      c.stderr?.on('data', (d) => (text += d));
      return () => text;
    });
    const results = await Promise.all(children.map(exited));
    results.forEach((r, i) => assert.equal(r.code, 0, stderr[i]()));
    assert.equal((await store.read(job.id)).recoveries, 1600);
  });

  it('a writer SIGKILLed 200 times mid-rewrite never leaves a torn record: every read is old or new', async () => {
    // Eight jobs, each rewritten and killed 25 times, side by side: 200 kills without 200 serial process starts.
    const jobs = await Promise.all(Array.from({ length: 8 }, () => store.create(sampleJob())));
    await Promise.all(
      jobs.map(async (job, lane) => {
        let last = 0;
        for (let kill = 0; kill < 25; kill++) {
          const child = bed.spawnFixture('rewriter', [job.id]);
          // Half the kills land around the first write, half among later ones (so the record surely moves on),
          // each after a moment that varies (0–4 ms): wherever the writer is then.
          await waitForLine(child, kill % 2 === 0 ? /^ready$/ : /^wrote$/);
          await new Promise((r) => setTimeout(r, (kill + lane) % 5));
          child.kill('SIGKILL');
          await exited(child);
          const read = await store.read(job.id);
          assert.ok(read.recoveries >= last, `went back from ${last} to ${read.recoveries}`);
          if (read.recoveries > 0) assert.match(read.title, new RegExp(`^version ${read.recoveries} `));
          else assert.equal(read.title, 'fix the tests');
          last = read.recoveries;
        }
        assert.ok(last > 0, 'the writer never got to write');
        // Its leftover temp files are swept by the next locked write.
        await store.transition(job.id, 'starting');
        assert.deepEqual(
          fs.readdirSync(store.jobDir(job.id)).filter((n) => n.startsWith('.tmp-')),
          [],
        );
      }),
    );
  });
});
