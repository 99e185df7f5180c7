/**
 * Records written before `leftoversFate`, and what a worker of that version still running after an
 * upgrade writes: their detail ends with the words on what the agent left running ("ending 1 process
 * it left running", …), which nothing of this version updates. Read, those words are lifted into
 * `leftoversFate` (migrations.ts), so the words follow what runs now and Stop acts on them. Real
 * store, real processes (a daemon carrying the agent's marker, a dead worker named as its ender),
 * both process backends. Found in review of bug 147's change: without the lift, such a row said a
 * process ran, for good, after it had exited or been stopped.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { bootId, readProcStat } from '../../../../src/core/proc';
import { stopLocked } from '../../../../src/core/operations/stop';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { JobStore, type LeftoversFate } from '../../../../src/core/store';
import { AGENT_MARKER_ENV } from '../../../../src/core/worker/agentMarker';
import { useProcessBackend } from '../proc/processBackend';
import { createWithWorktree, useTestBed } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (pid: number) => { const s = readProcStat(pid); return !!s && s.state !== 'Z'; };

for (const backend of ['proc', 'portable'] as const) {
  describe(`store: leftover words an earlier version wrote into the detail, ${backend} backend`, function () {
    this.timeout(30_000);
    let store!: JobStore;
    const daemons: number[] = [];
    useProcessBackend(backend);
    useTestBed((_bed, fresh) => (store = fresh));
    afterEach(() => {
      for (const pid of daemons.splice(0)) try { process.kill(pid, 'SIGKILL'); } catch { /* exited */ }
    });

    /** A dead process's identity: an old worker killed while it ended what its agent left. */
    async function deadWorker() {
      const dead = spawn('true');
      await new Promise((r) => dead.on('exit', r));
      return { pid: dead.pid!, startTime: 1, bootId: bootId() };
    }

    /** An ended agent's record as the earlier version left it on disk: its words in the detail, no leftoversFate. */
    async function oldRecord(detail: string, opts: { daemon?: boolean; ender?: boolean } = {}): Promise<{ id: string; daemon?: number }> {
      const job = await createWithWorktree(store);
      await store.transition(job.id, 'starting');
      await store.transition(job.id, 'running');
      await store.transition(job.id, 'completed', { exitCode: 0, detail: 'exit 0' });
      let daemon: number | undefined;
      const raw = JSON.parse(fs.readFileSync(path.join(store.jobDir(job.id), 'job.json'), 'utf8'));
      if (opts.daemon) {
        const d = spawn('sleep', ['600'], { detached: true, stdio: 'ignore', env: { ...process.env, [AGENT_MARKER_ENV]: job.id } });
        d.unref();
        daemon = d.pid!;
        daemons.push(daemon);
        await sleep(200);
        raw.leftovers = [{ pid: daemon, command: 'sleep 600', startTime: readProcStat(daemon)!.startTime, bootId: bootId() }];
      }
      if (opts.ender) raw.leftoversEnder = await deadWorker();
      writeRaw(job.id, { ...raw, lifecycle: { ...raw.lifecycle, detail } });
      return { id: job.id, daemon };
    }

    function readRaw(id: string): Record<string, unknown> & { leftoversFate?: unknown } {
      return JSON.parse(fs.readFileSync(path.join(store.jobDir(id), 'job.json'), 'utf8'));
    }

    function writeRaw(id: string, raw: Record<string, unknown>): void {
      fs.writeFileSync(path.join(store.jobDir(id), 'job.json'), JSON.stringify(raw));
    }

    it('each of its wordings is read as the detail plus leftoversFate', async () => {
      const cases: [string, LeftoversFate][] = [
        ['exit 0; ending 2 processes it left running', { count: 2, generation: 1 }],
        ['exit 0; left 1 process running', { count: 1, generation: 1 }],
        ['killed by SIGTERM; the 3 processes it left running exited', { count: 3, generation: 1 }],
        ['exit 0; stopped 2 processes it left running', { count: 2, outcome: 'stopped', generation: 1 }],
        ['exit 0; ended 1 process it left running', { count: 1, outcome: 'ended', generation: 1 }],
        ['exit 1; ended 2 processes it left running; still running: 77 (sleep 5; echo x), 78 (y)', { count: 2, outcome: 'ended', survivors: '77 (sleep 5; echo x), 78 (y)', generation: 1 }],
        ['exit 0; still running: 77 (sleep)', { count: 0, outcome: 'ended', survivors: '77 (sleep)', generation: 1 }],
        // Its list cut by the detail's cap.
        ['exit 0; still running: 77 (sleep), 78 (sle…', { count: 0, outcome: 'ended', survivors: '77 (sleep), 78 (sle…', generation: 1 }],
      ];
      for (const [detail, fate] of cases) {
        const { id } = await oldRecord(detail);
        const job = await store.read(id);
        assert.deepEqual(job.leftoversFate, fate, detail);
        assert.equal(job.lifecycle.detail, detail.split('; ')[0], detail);
        // Its next write keeps this version's form.
        await store.update(id, (j) => j);
        const raw = JSON.parse(fs.readFileSync(path.join(store.jobDir(id), 'job.json'), 'utf8'));
        assert.deepEqual([raw.lifecycle.detail, raw.leftoversFate], [detail.split('; ')[0], fate], detail);
      }
      // Other details keep their words: a stopped agent's own, a gone worker's.
      // What merely ends like them, naming no list of processes as that worker wrote it (bug 146).
      const others = ['stopped, but still running: 5 (x)', 'worker gone; still running after SIGKILL: 5 (x)', 'exit 0', 'exit 1; still running: the dev server', 'exit 1; ended 1 process it left running; still running: npm'];
      for (const detail of others) {
        const { id } = await oldRecord(detail);
        const job = await store.read(id);
        assert.equal(job.lifecycle.detail, detail);
        assert.equal(job.leftoversFate, undefined);
      }
    });

    it('its worker killed while ending them: said left running, then Stop ends them and says so', async () => {
      const { id, daemon } = await oldRecord('exit 0; ending 1 process it left running', { daemon: true, ender: true });
      assert.equal(lifecycleDetail(await store.read(id)), 'exit 0; left 1 process running');
      const report = await stopLocked(store, id, { force: true, graceMs: 500 });
      assert.deepEqual(report.ended.map((p) => p.pid), [daemon]);
      assert.ok(!alive(daemon!));
      const after = await store.read(id);
      assert.deepEqual(after.leftovers, []);
      assert.equal(lifecycleDetail(after), 'exit 0; stopped 1 process it left running');
    });

    it('left to the person: once it exits by itself the detail says so, not that it runs', async () => {
      const { id, daemon } = await oldRecord('exit 0; left 1 process running', { daemon: true });
      assert.equal(lifecycleDetail(await store.read(id)), 'exit 0; left 1 process running');
      process.kill(daemon!, 'SIGKILL');
      const deadline = Date.now() + 5000;
      while (alive(daemon!) && Date.now() < deadline) await sleep(20);
      await store.update(id, (j) => j);
      const after = await store.read(id);
      assert.deepEqual(after.leftovers, []);
      assert.equal(lifecycleDetail(after), 'exit 0; the 1 process it left running exited');
    });

    it("a worker of the earlier version still running writes its words again: they are lifted each time", async () => {
      const { id } = await oldRecord('exit 0; ending 1 process it left running');
      await store.update(id, (j) => j); // this version's form on disk: leftoversFate {count: 1}
      // The old worker, done ending them, rewrites the whole detail (and keeps the field it does not know).
      const raw = JSON.parse(fs.readFileSync(path.join(store.jobDir(id), 'job.json'), 'utf8'));
      assert.deepEqual(raw.leftoversFate, { count: 1, generation: 1 });
      writeRaw(id, { ...raw, lifecycle: { ...raw.lifecycle, detail: 'exit 0; ended 1 process it left running' } });
      const job = await store.read(id);
      assert.deepEqual(job.leftoversFate, { count: 1, outcome: 'ended', generation: 1 });
      assert.equal(lifecycleDetail(job), 'exit 0; ended 1 process it left running');
    });

    it('what it said still runs, which that worker did not list, is said so until it exits (bug 146)', async () => {
      const d = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
      d.unref();
      daemons.push(d.pid!);
      await sleep(200);
      // Forked after that worker's exit scan: on no list of the record.
      const { id } = await oldRecord(`exit 0; ended 1 process it left running; still running: ${d.pid} (sleep 600)`);
      assert.equal(lifecycleDetail(await store.read(id)), `exit 0; ended 1 process it left running; still running: ${d.pid} (sleep 600)`);
      process.kill(d.pid!, 'SIGKILL');
      const deadline = Date.now() + 5000;
      while (alive(d.pid!) && Date.now() < deadline) await sleep(20);
      await store.read(id); // a reader drops it from the listing
      assert.equal(lifecycleDetail(await store.read(id)), `exit 0; ended 1 process it left running; since exited: ${d.pid} (sleep 600)`);
    });

    it("a detail that merely ends in such words is not lifted over a fate that says what became of them (bug 146)", async () => {
      const { id } = await oldRecord('exit 1; stopped 2 processes it left running');
      const raw = readRaw(id);
      writeRaw(id, { ...raw, leftoversFate: { count: 1, outcome: 'ended', generation: 1 } });
      const job = await store.read(id);
      assert.equal(job.lifecycle.detail, 'exit 1; stopped 2 processes it left running');
      assert.deepEqual(job.leftoversFate, { count: 1, outcome: 'ended', generation: 1 });
    });

    it("an older Paddock's retry keeps the first run's fate: the next generation is not said to have left or stopped anything (bug 146)", async () => {
      const { id } = await oldRecord('exit 0; stopped 2 processes it left running');
      await store.update(id, (j) => j);
      const first = readRaw(id).leftoversFate;
      assert.deepEqual(first, { count: 2, outcome: 'stopped', generation: 1 });
      // The older Paddock's retry: generation 2, the field it does not know kept.
      await store.beginGeneration(id);
      writeRaw(id, { ...readRaw(id), leftoversFate: first });
      await store.transition(id, 'starting');
      await store.transition(id, 'running');
      await store.transition(id, 'failed', { exitCode: 1, detail: 'exit 1' });
      assert.equal(lifecycleDetail(await store.read(id)), 'exit 1');
      assert.equal(readRaw(id).leftoversFate, undefined, 'its next write leaves it behind');
      // One written before fates named their generation cannot be placed: it says nothing.
      writeRaw(id, { ...readRaw(id), leftoversFate: { count: 1 } });
      assert.equal(lifecycleDetail(await store.read(id)), 'exit 1');
    });
  });
}
