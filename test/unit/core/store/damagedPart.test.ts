/**
 * The store's parts named in words (bug 50), and a job whose place in `jobs/` holds no record: every
 * reader says it exists and is unreadable, with what to do, as the listing does; never "no such agent".
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { JobStore } from '../../../../src/core/store';
import { damagedPartWords, storePartOf } from '../../../../src/core/store/damagedPart';
import { damagedWrittenPart } from '../../../../src/core/store/jobFolderCheck';
import { StoreLayout } from '../../../../src/core/store/paths';
import { sampleJob } from './helpers';

describe('store: damaged parts in words', () => {
  let home: string;
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-damaged-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('names the agent and the part for each path in a job folder, and nothing outside them', () => {
    const at = (...rest: string[]) => path.join(home, 'jobs', ...rest);
    assert.deepEqual(storePartOf(home, at('ab12cd34')), { id: 'ab12cd34', part: 'folder' });
    assert.deepEqual(storePartOf(home, at('ab12cd34', 'timeline.jsonl')), { id: 'ab12cd34', part: 'timeline' });
    assert.deepEqual(storePartOf(home, at('ab12cd34', 'output', '000000000003.seg')), { id: 'ab12cd34', part: 'output segment 000000000003.seg' });
    assert.deepEqual(storePartOf(home, at('ab12cd34', '.tmp-job.json.77.0a1b2c3d')), { id: 'ab12cd34', part: 'record' });
    assert.deepEqual(storePartOf(home, at('ab12cd34', 'mystery')), { id: 'ab12cd34', part: 'file mystery' });
    assert.equal(storePartOf(home, at('.removing-ab12cd34.0a1b')), undefined);
    assert.equal(storePartOf(home, path.join(home, 'changes', 'ab12cd34')), undefined);
    assert.equal(storePartOf(home, '/etc/passwd'), undefined);
    assert.equal(
      damagedPartWords(home, { code: 'ENOTDIR', syscall: 'open', path: at('ab12cd34', 'output', '000000000001.seg') }),
      `Agent ab12cd34's output segment 000000000001.seg could not be opened: something on its path that should be a folder is a file (${at('ab12cd34', 'output', '000000000001.seg')})`,
    );
  });

  it('finds the first part a new execution writes that is not what it must be', async () => {
    const store = new JobStore({ home });
    const job = await store.create(sampleJob());
    const layout = new StoreLayout(home);
    assert.equal(await damagedWrittenPart(layout, job.id), undefined);
    fs.mkdirSync(path.join(store.jobDir(job.id), 'worker.log'));
    assert.match((await damagedWrittenPart(layout, job.id)) ?? '', /^its worker log \(.*worker\.log\) is a folder, not a file$/);
  });

  it('a job folder without a record, or a plain file in its place, reads unreadable with what to do; an update refuses it the same way', async () => {
    const store = new JobStore({ home });
    await store.create(sampleJob()); // makes jobs/
    fs.mkdirSync(path.join(home, 'jobs', 'norecord1'));
    fs.writeFileSync(path.join(home, 'jobs', 'plainfile1'), 'x');
    const hour = new Date(Date.now() - 3_600_000);
    fs.utimesSync(path.join(home, 'jobs', 'norecord1'), hour, hour);
    const unreadable = (id: string, reason: RegExp) => (err: PaddockError) => err.code === 'UNREADABLE' && reason.test(err.message) && new RegExp(`paddock forget ${id} removes it\\.$`).test(err.message);
    for (const [id, reason] of [
      ['norecord1', /^Agent norecord1 is unreadable: it has no record \(its creation was interrupted\)/],
      ['plainfile1', /^Agent plainfile1 is unreadable: its folder is a plain file, so it has no record/],
    ] as const) {
      await assert.rejects(store.read(id), unreadable(id, reason));
      await assert.rejects(store.update(id, (j) => j), unreadable(id, reason));
      const entry = await store.tryRead(id);
      assert.equal(entry.ok, false);
      assert.ok(!entry.ok && entry.interruptedCreate);
    }
    const listed = (await store.list()).filter((e) => !e.ok).map((e) => e.id).sort();
    assert.deepEqual(listed, ['norecord1', 'plainfile1']);
    await assert.rejects(store.read('nothing01'), (err: PaddockError) => err.code === 'NOT_FOUND');
  });
});
