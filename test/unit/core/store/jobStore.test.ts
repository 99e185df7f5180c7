import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobStore, SCHEMA_VERSION } from '../../../../src/core/store';
import { PaddockError } from '../../../../src/core/common/errors';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';
import { JOB_RECORD_KEYS } from '../../../../src/core/store/recordCheck';
import { allFiles, sampleJob, TestBed, useTestBed } from './helpers';

describe('JobStore', () => {
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((freshBed, freshStore) => {
    bed = freshBed;
    store = freshStore;
  });

  it('creates a queued generation-1 record that reads back identically', async () => {
    const job = await store.create(sampleJob());
    assert.match(job.id, /^[a-z0-9]{8}$/);
    assert.equal(job.lifecycle.state, 'queued');
    assert.equal(job.lifecycle.generation, 1);
    assert.deepEqual(await store.read(job.id), job);
    assert.deepEqual(
      (await store.readTimeline(job.id)).map((e) => [e.type, e.to]),
      [['created', 'queued']],
    );
  });

  it('writes a record with its fields in the schema\'s order, however a change added them, and refuses an invalid change saying why', async () => {
    const job = await store.create(sampleJob());
    // Optional fields added out of the schema's order (the schema has autoApprove before leftovers).
    await store.update(job.id, (j) => ({ ...j, leftovers: [], autoApprove: true }));
    const onDisk = JSON.parse(fs.readFileSync(path.join(store.jobDir(job.id), 'job.json'), 'utf8')) as Record<string, unknown>;
    const keys = Object.keys(onDisk);
    assert.deepEqual(keys.slice(-2), ['autoApprove', 'leftovers']);
    assert.deepEqual(keys, [...JOB_RECORD_KEYS].filter((k) => k in onDisk));
    await assert.rejects(
      store.update(job.id, (j) => ({ ...j, title: 'x'.repeat(501) })),
      /The change to agent \w+ is invalid: title: /,
    );
    assert.equal((await store.read(job.id)).title, job.title, 'nothing written');
  });

  it('gives unique ids to many concurrent creates', async () => {
    const jobs = await Promise.all(Array.from({ length: 50 }, () => store.create(sampleJob())));
    assert.equal(new Set(jobs.map((j) => j.id)).size, 50);
    assert.equal((await store.list()).length, 50);
  });

  it('keeps the store private: directories 0700, files 0600', async () => {
    const job = await store.create(sampleJob());
    await store.transition(job.id, 'starting');
    const out = store.openOutput(job.id);
    out.append('hello');
    await out.close();
    for (const dir of [store.home, path.join(store.home, 'jobs'), store.jobDir(job.id)]) {
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700, dir);
    }
    for (const file of allFiles(store.home)) assert.equal(fs.statSync(file).mode & 0o777, 0o600, file);
  });

  it('rejects ids that could name a path outside the store, everywhere', async () => {
    for (const bad of ['../etc', 'ABCDEF', 'abc', 'abc/def123', '', 'abcdef\n', '.', 'a'.repeat(13)]) {
      assert.throws(() => store.jobDir(bad), (e: PaddockError) => e.kind === 'usage', bad);
      await assert.rejects(store.read(bad), (e: PaddockError) => e.kind === 'usage');
      await assert.rejects(store.update(bad, () => undefined), (e: PaddockError) => e.kind === 'usage');
      await assert.rejects(store.transition(bad, 'starting'), (e: PaddockError) => e.kind === 'usage');
      assert.throws(() => store.openOutput(bad), (e: PaddockError) => e.kind === 'usage');
    }
  });

  it('reports a missing job as a failure naming it', async () => {
    await assert.rejects(store.read('zzzzzz99'), /No agent zzzzzz99/);
    assert.deepEqual(await store.tryRead('zzzzzz99'), { id: 'zzzzzz99', ok: false, reason: 'no such agent' });
  });

  it('validates the result of an update and writes nothing when it is invalid', async () => {
    const job = await store.create(sampleJob());
    await assert.rejects(
      store.update(job.id, (j) => {
        (j as { title: unknown }).title = 42;
      }),
      /is invalid: title/,
    );
    await assert.rejects(store.update(job.id, (j) => ({ ...j, lifecycle: { ...j.lifecycle, generation: 5 } })), /beginGeneration/);
    assert.deepEqual(await store.read(job.id), job);
  });

  it('applies a state change made inside update through the transition table', async () => {
    const job = await store.create(sampleJob());
    await assert.rejects(
      store.update(job.id, (j) => {
        j.lifecycle.state = 'completed';
      }),
      /cannot go from queued to completed/,
    );
    const next = await store.update(job.id, (j) => {
      j.lifecycle.state = 'cancelled';
      j.lifecycle.detail = 'nobody wanted it';
    });
    assert.equal(next.lifecycle.state, 'cancelled');
    assert.ok(next.lifecycle.endedAt);
    assert.deepEqual((await store.readTimeline(job.id)).map((e) => e.to), ['queued', 'cancelled']);
  });

  it('refuses a transition from an unexpected state', async () => {
    const job = await store.create(sampleJob());
    await assert.rejects(store.transition(job.id, 'starting', {}, { expectFrom: ['running'] }), /is queued, not running/);
    assert.equal((await store.read(job.id)).lifecycle.state, 'queued');
  });

  it('refuses to fail a start without its worker once a worker has claimed it, or at another generation (bug 132)', async () => {
    const job = await store.create(sampleJob());
    await store.transition(job.id, 'starting');
    await assert.rejects(store.transition(job.id, 'failed', { detail: 'x' }, { expectFrom: ['starting'], expectUnclaimed: 2 }), (e: unknown) => e instanceof PaddockError && e.code === 'UNEXPECTED_STATE');
    const claim = await store.claimExecution(job.id, { generation: 1, socketPath: socketPathFor(job.id, 1), socketToken: 'k'.repeat(24) });
    await claim.release();
    await assert.rejects(store.transition(job.id, 'failed', { detail: 'x' }, { expectFrom: ['starting'], expectUnclaimed: 1 }), (e: unknown) => e instanceof PaddockError && e.code === 'UNEXPECTED_STATE');
    assert.equal((await store.read(job.id)).lifecycle.state, 'starting');
  });

  it('starts a new generation from an ended job and refuses it from a live one', async () => {
    const job = await store.create(sampleJob());
    await assert.rejects(store.beginGeneration(job.id), /only an ended agent can be retried/);
    await store.transition(job.id, 'failed', { exitCode: 3, detail: 'exit 3' });
    const retried = await store.beginGeneration(job.id);
    assert.equal(retried.lifecycle.generation, 2);
    assert.equal(retried.lifecycle.state, 'queued');
    assert.equal(retried.lifecycle.exitCode, null);
    assert.equal(retried.lifecycle.detail, null);
    const auto = await store.transition(job.id, 'cancelled').then(() => store.beginGeneration(job.id, { automatic: true }));
    assert.equal(auto.recoveries, 1);
  });

  describe('unreadable records', () => {
    const damage: Record<string, (text: string) => string> = {
      corrupt: () => '{"schemaVersion": 1, "id": ###',
      truncated: (t) => t.slice(0, Math.floor(t.length / 2)),
      empty: () => '',
      'wrong schema': (t) => JSON.stringify({ ...JSON.parse(t), lifecycle: { state: 'dancing' } }),
      'future schema': (t) => JSON.stringify({ ...JSON.parse(t), schemaVersion: SCHEMA_VERSION + 1 }),
      'no schemaVersion': (t) => JSON.stringify({ ...JSON.parse(t), schemaVersion: undefined }),
    };
    for (const [name, breakIt] of Object.entries(damage)) {
      it(`shows a ${name} record as unreadable with the reason, lists the others, overwrites nothing`, async () => {
        const good = await store.create(sampleJob({ title: 'good' }));
        const bad = await store.create(sampleJob({ title: 'bad' }));
        const file = path.join(store.jobDir(bad.id), 'job.json');
        const broken = breakIt(fs.readFileSync(file, 'utf8'));
        fs.writeFileSync(file, broken);

        const entries = await store.list();
        const badEntry = entries.find((e) => e.id === bad.id);
        assert.ok(badEntry && !badEntry.ok);
        assert.ok(badEntry.reason.length > 10, badEntry.reason);
        if (name === 'future schema') assert.match(badEntry.reason, /newer Paddock/);
        assert.deepEqual(entries.find((e) => e.id === good.id), { id: good.id, ok: true, job: good });

        await assert.rejects(store.read(bad.id), new RegExp(`Agent ${bad.id} is unreadable: `));
        await assert.rejects(store.transition(bad.id, 'starting'), /unreadable/);
        await assert.rejects(store.update(bad.id, () => undefined), /unreadable/);
        assert.equal(fs.readFileSync(file, 'utf8'), broken);
      });
    }

    it('treats a record naming another id as unreadable', async () => {
      const a = await store.create(sampleJob());
      const b = await store.create(sampleJob());
      fs.copyFileSync(path.join(store.jobDir(a.id), 'job.json'), path.join(store.jobDir(b.id), 'job.json'));
      assert.deepEqual(await store.tryRead(b.id), { id: b.id, ok: false, reason: `the record names agent ${a.id}, not ${b.id}` });
    });
  });

  it('the next write sweeps temp files a crashed writer left behind, under the lock', async () => {
    const job = await store.create(sampleJob());
    const leftover = path.join(store.jobDir(job.id), '.tmp-job.json.12345.abcd');
    fs.writeFileSync(leftover, '{"half": ');
    await store.read(job.id);
    assert.equal(fs.existsSync(leftover), true, 'a read does not touch the files of a write in progress');
    await store.transition(job.id, 'starting');
    assert.equal(fs.existsSync(leftover), false);
  });

  // Bug 60: the sweep took every temp file in the job folder, those of files written under other
  // locks (review.json, env.sealed) included, between their write and their rename.
  it('a record write sweeps only the record\'s temp files, never those of the folder\'s other files', async () => {
    const job = await store.create(sampleJob());
    const dir = store.jobDir(job.id);
    const recordLeftover = path.join(dir, '.tmp-job.json.12345.abcd');
    const othersInFlight = [path.join(dir, '.tmp-review.json.12345.abcd'), path.join(dir, '.tmp-env.sealed.12345.abcd')];
    for (const file of [recordLeftover, ...othersInFlight]) fs.writeFileSync(file, '{"half": ');
    await store.transition(job.id, 'starting');
    assert.equal(fs.existsSync(recordLeftover), false, 'the record\'s leftover is swept');
    assert.deepEqual(othersInFlight.filter((f) => !fs.existsSync(f)), [], 'the other files\' writes in progress are left alone');
  });

  describe('a lost lock aborts the write, never the process', () => {
    it('refuses to commit after the lock was taken away mid-update', async () => {
      // Refreshed every 1.5 s, so the loss is noticed well before the 3 s "held too long" limit.
      const slow = bed.store({ lock: { staleMs: 6000 } });
      const job = await slow.create(sampleJob());
      await assert.rejects(
        slow.update(job.id, async (j) => {
          // What a stale takeover looks like to the holder: its lock directory is gone.
          fs.rmSync(path.join(slow.jobDir(job.id), 'job.lock'), { recursive: true });
          await new Promise((r) => setTimeout(r, 2500));
          j.title = 'should not be written';
        }),
        (e: PaddockError) => e.code === 'LOCK_COMPROMISED' && /Lost the lock/.test(e.message),
      );
      assert.equal((await slow.read(job.id)).title, job.title);
    });

    it('refuses to commit a section that held the lock past half the stale time', async () => {
      const slow = bed.store({ lock: { staleMs: 2000 } });
      const job = await slow.create(sampleJob());
      await assert.rejects(
        slow.update(job.id, async (j) => {
          await new Promise((r) => setTimeout(r, 1100));
          j.title = 'should not be written';
        }),
        /too long/,
      );
      assert.equal((await slow.read(job.id)).title, job.title);
      // The store is still usable afterwards.
      assert.equal((await slow.transition(job.id, 'starting')).lifecycle.state, 'starting');
    });
  });

  it('uses $PADDOCK_HOME, then $XDG_STATE_HOME/paddock, then ~/.local/state/paddock', () => {
    assert.equal(JobStore.defaultHome({ PADDOCK_HOME: '/p', XDG_STATE_HOME: '/x', HOME: '/h' }), '/p');
    assert.equal(JobStore.defaultHome({ XDG_STATE_HOME: '/x', HOME: '/h' }), '/x/paddock');
    assert.equal(JobStore.defaultHome({ HOME: '/h' }), '/h/.local/state/paddock');
  });

  it('gives the evidence patch a path inside the job folder', async () => {
    const job = await store.create(sampleJob());
    assert.equal(store.patchPath(job.id), path.join(store.home, 'jobs', job.id, 'evidence', 'snapshot.patch'));
    assert.ok(fs.statSync(path.dirname(store.patchPath(job.id))).isDirectory());
  });
});
