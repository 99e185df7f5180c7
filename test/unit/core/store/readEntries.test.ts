import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { identityOf } from '../../../../src/core/proc/identity';
import { JobStore } from '../../../../src/core/store';
import { readEntries } from '../../../../src/core/store/readEntries';
import { PortablePs, watchEventLoop } from '../proc/portablePs';
import { sampleJob, TestBed, useTestBed } from './helpers';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';

describe('reading records without blocking (readEntries)', () => {
  let store!: JobStore;
  let bed!: TestBed;
  useTestBed((testBed: TestBed, freshStore) => {
    bed = testBed;
    store = freshStore;
  });

  /** Rewrites a record on disk as another process (a dead worker, a cleanup) left it. */
  const rewrite = (id: string, change: (record: { id: string; lifecycle: { state: string; generation: number }; [key: string]: unknown }) => void) => {
    const file = path.join(store.jobDir(id), 'job.json');
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    change(record);
    fs.writeFileSync(file, JSON.stringify(record));
  };

  for (const blockingReads of [false, true]) {
    it(`JobStore.list ${blockingReads ? 'with blocking reads (the CLI)' : 'without blocking (a window)'}: every kind of record, reconciled, oldest first`, async () => {
      const good = await store.create(sampleJob({ title: 'good' }));
      const broken = await store.create(sampleJob({ title: 'broken' }));
      fs.writeFileSync(path.join(store.jobDir(broken.id), 'job.json'), '{"truncated": ');
      const deadOwner = await store.create(sampleJob({ title: 'dead owner' }));
      await store.transition(deadOwner.id, 'starting');
      rewrite(deadOwner.id, (r) => {
        r.lifecycle.state = 'running';
        r.execution = {
          ownerToken: 'x'.repeat(32), generation: r.lifecycle.generation, pid: 999_999, startTime: 1, bootId: 'no-such-boot',
          socketPath: socketPathFor(r.id, r.lifecycle.generation), socketToken: 'y'.repeat(32), claimedAt: new Date().toISOString(),
        };
      });
      const leftBehind = await store.create(sampleJob({ title: 'left a process' }));
      await store.transition(leftBehind.id, 'starting');
      await store.transition(leftBehind.id, 'completed');
      rewrite(leftBehind.id, (r) => (r.leftovers = [{ pid: 999_998, command: 'a process that exited', startTime: 1, bootId: 'no-such-boot' }]));
      const interrupted = await store.create(sampleJob({ title: 'interrupted' }));
      fs.rmSync(path.join(store.jobDir(interrupted.id), 'job.json'));
      const longAgo = new Date(Date.now() - 3_600_000);
      fs.utimesSync(store.jobDir(interrupted.id), longAgo, longAgo);

      const entries = await bed.store({ blockingReads }).list();
      const byId = new Map(entries.map((e) => [e.id, e]));
      const job = (id: string) => {
        const e = byId.get(id);
        assert.ok(e?.ok, `${id}: ${e && !e.ok ? e.reason : 'missing'}`);
        return e.job;
      };
      assert.equal(job(good.id).title, 'good');
      assert.equal(job(deadOwner.id).lifecycle.state, 'orphaned');
      assert.deepEqual(job(leftBehind.id).leftovers, []);
      assert.match((byId.get(broken.id) as { reason: string }).reason, /not valid JSON/);
      assert.deepEqual(byId.get(interrupted.id), { id: interrupted.id, ok: false, reason: 'it has no record (its creation was interrupted)', interruptedCreate: true });
      // Oldest first, then the unreadable ones.
      assert.deepEqual(entries.map((e) => e.id), [good.id, deadOwner.id, leftBehind.id, ...[broken.id, interrupted.id].sort()]);
      // Reconciled on disk too, once.
      assert.equal(JSON.parse(fs.readFileSync(path.join(store.jobDir(deadOwner.id), 'job.json'), 'utf8')).lifecycle.state, 'orphaned');
    });
  }

  it('on the portable backend, a listing runs ps once for the whole process table, not once per live agent, and a read runs none blocking', async function () {
    // Each agent's worker judged alive by its own `ps -p` was a blocking run on the window's event loop
    // per listing; a `ps` that counts its runs, ahead of the real one in PATH, shows what a listing asks.
    const ps = new PortablePs(fs.mkdtempSync(path.join(bed.home, 'shims-')));
    if (!ps.real) return this.skip();
    const runs = path.join(bed.home, 'ps-runs');
    const sleepers = Array.from({ length: 5 }, () => spawn('sleep', ['60'], { stdio: 'ignore' }));
    try {
      ps.useBackend();
      const ids: string[] = [];
      for (const sleeper of sleepers) {
        const owner = identityOf(sleeper.pid!);
        assert.ok(owner, 'the sleeper is seen by ps');
        const job = await store.create(sampleJob());
        await store.transition(job.id, 'starting');
        rewrite(job.id, (r) => {
          r.lifecycle.state = 'running';
          r.execution = {
            ownerToken: 'x'.repeat(32), generation: r.lifecycle.generation, ...owner,
            socketPath: socketPathFor(r.id, r.lifecycle.generation), socketToken: 'y'.repeat(32), claimedAt: new Date().toISOString(),
          };
        });
        ids.push(job.id);
      }
      const ended = await store.create(sampleJob({ title: 'ended' }));
      await store.transition(ended.id, 'starting');
      await store.transition(ended.id, 'completed');
      // A first listing reads what a process reads once (the boot identity, its own start time).
      await store.list();
      ps.shim(`echo "$*" >> '${runs}'`);
      const listings: [string, () => Promise<{ ok: boolean; job?: { lifecycle: { state: string } } }[]>][] = [
        ['a window\'s listing', () => bed.store().list()],
        ['the CLI\'s listing', () => bed.store({ blockingReads: true }).list()],
        ['the agents model\'s read of given ids', () => readEntries(store, ids)],
      ];
      for (const [name, list] of listings) {
        fs.rmSync(runs, { force: true });
        const entries = await list();
        const states = entries.filter((e) => e.ok && e.job?.lifecycle.state === 'running').length;
        assert.equal(states, ids.length, `${name}: every live agent stays running`);
        const ran = fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8').trim().split('\n') : [];
        assert.equal(ran.length, 1, `${name} ran ps ${ran.length} times: ${ran.join(' | ')}`);
      }
      // A listing of ended agents only asks nothing.
      fs.rmSync(runs, { force: true });
      await readEntries(store, [ended.id]);
      assert.equal(fs.existsSync(runs), false, 'an ended agent needs no look at the processes');
      // An operation's read of one live agent's record: judged without stopping the event loop,
      // however slow `ps` is (it was a blocking `ps -p` on every read).
      ps.shim('sleep 0.3');
      const read = await watchEventLoop(() => bed.store().read(ids[0]));
      assert.equal(read.result.lifecycle.state, 'running');
      assert.ok(read.elapsedMs >= 300, 'the read asked the slow ps');
      assert.ok(read.longestGapMs < 300, `a read stopped the event loop for ${read.longestGapMs} ms`);
    } finally {
      ps.restore();
      for (const sleeper of sleepers) sleeper.kill('SIGKILL');
    }
  });

  it('reads what JobStore.list reads: good records, unreadable ones with their reason', async () => {
    const good = await store.create(sampleJob({ title: 'good' }));
    const broken = await store.create(sampleJob({ title: 'broken' }));
    fs.writeFileSync(path.join(store.jobDir(broken.id), 'job.json'), '{"truncated": ');
    const sorted = (entries: Awaited<ReturnType<JobStore['list']>>) => [...entries].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(sorted(await readEntries(store)), sorted(await store.list()));
    const [one] = await readEntries(store, [good.id]);
    assert.ok(one.ok && one.job.title === 'good');
  });

  it('reports a job that is gone as "no such agent", and skips ids that are not job ids', async () => {
    const job = await store.create(sampleJob());
    fs.rmSync(store.jobDir(job.id), { recursive: true });
    assert.deepEqual(await readEntries(store, [job.id, '../etc']), [{ id: job.id, ok: false, reason: 'no such agent' }]);
  });

  it('hands a record whose owner is dead to the store, which reconciles it (orphaned, on disk too)', async () => {
    const job = await store.create(sampleJob());
    await store.transition(job.id, 'starting');
    const file = path.join(store.jobDir(job.id), 'job.json');
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    record.lifecycle.state = 'running';
    record.execution = {
      ownerToken: 'x'.repeat(32), generation: record.lifecycle.generation, pid: 999_999, startTime: 1, bootId: 'no-such-boot',
      socketPath: socketPathFor(record.id, record.lifecycle.generation), socketToken: 'y'.repeat(32), claimedAt: new Date().toISOString(),
    };
    fs.writeFileSync(file, JSON.stringify(record));
    const [entry] = await readEntries(store, [job.id]);
    assert.ok(entry.ok, entry.ok ? '' : entry.reason);
    assert.equal(entry.job.lifecycle.state, 'orphaned');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).lifecycle.state, 'orphaned');
  });
});
