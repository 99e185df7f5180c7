/**
 * Watching many agents' operation locks, and saying which are held by a suspended process, takes
 * one look at the process table each time, not one per lock and question: on the portable backend
 * each look is a `ps` process, and the leader's watch runs every second while a launch is under way
 * (bug 132's review: 10 locks cost 21 `ps` a second; a listing of 10 starting agents 11 runs). The
 * `ps` that runs is the real one, counted by a wrapper put first on PATH. Real lock holders.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bootId } from '../../../../src/core/proc';
import { jobLock } from '../../../../src/core/operations/context';
import { storeSuspensions } from '../../../../src/core/operations/suspensions';
import { HeldLocks } from '../../../../src/core/scheduler/heldLocks';
import type { JobStore } from '../../../../src/core/store';
import { sampleJob, TestBed, useTestBed } from '../store/helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('one look at the processes for many locks (portable backend)', function () {
  this.timeout(30_000);
  let bed!: TestBed;
  let store!: JobStore;
  let holder: ChildProcess | undefined;
  const saved = { PATH: process.env.PATH, backend: process.env.PADDOCK_PROCESS_BACKEND };
  useTestBed((b, s) => ((bed = b), (store = s)));
  afterEach(() => {
    for (const sig of ['SIGCONT', 'SIGKILL'] as const) if (holder?.pid) process.kill(holder.pid, sig);
    holder = undefined;
    process.env.PATH = saved.PATH;
    if (saved.backend === undefined) delete process.env.PADDOCK_PROCESS_BACKEND;
    else process.env.PADDOCK_PROCESS_BACKEND = saved.backend;
  });

  /** `n` starting agents whose operation locks another live process holds; `ps` runs counted from now on. */
  async function heldByAnother(n: number): Promise<{ ids: string[]; psRuns: () => number; holderPid: number }> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const job = await store.create(sampleJob());
      await store.transition(job.id, 'starting');
      ids.push(job.id);
    }
    const dirs = ids.map((id) => jobLock(store, id).lockDir);
    const held = join(bed.home, 'held');
    const ownedLock = resolve(__dirname, '../../../../src/core/coordinator/ownedLock.js');
    const script = `const {OwnedLock}=require(${JSON.stringify(ownedLock)});(async()=>{for(const d of ${JSON.stringify(dirs)}) if(!(await new OwnedLock(d,'start').tryAcquire())) process.exit(3); require('fs').writeFileSync(${JSON.stringify(held)},'');setInterval(()=>{},1000)})()`;
    // Identities are comparable within one backend: the holder records its own as the portable one reads it.
    holder = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true, env: { ...process.env, PADDOCK_PROCESS_BACKEND: 'portable' } });
    while (!existsSync(held)) await sleep(20);
    const bin = join(bed.home, 'bin');
    const log = join(bed.home, 'ps.log');
    mkdirSync(bin);
    const real = ['/bin/ps', '/usr/bin/ps'].find((p) => existsSync(p))!;
    writeFileSync(join(bin, 'ps'), `#!/bin/sh\necho "run $*" >> '${log}'\nexec ${real} "$@"\n`);
    chmodSync(join(bin, 'ps'), 0o755);
    writeFileSync(log, '');
    process.env.PATH = `${bin}:${saved.PATH}`;
    process.env.PADDOCK_PROCESS_BACKEND = 'portable';
    return { ids, psRuns: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length, holderPid: holder.pid! };
  }

  it('a listing of many agents being launched reads the processes once, and says the stopped holder', async () => {
    const { ids, psRuns, holderPid } = await heldByAnother(8);
    const jobs = await Promise.all(ids.map((id) => store.read(id)));
    bootId(); // read once a process (the portable backend asks ps for pid 1's start)
    const from = psRuns(); // reading the records judged their owners: not the listing's look
    assert.equal((await storeSuspensions(store, jobs)).size, 0);
    assert.equal(psRuns() - from, 1, `one ps for 8 agents: ${readFileSync(join(bed.home, 'ps.log'), 'utf8')}`);
    process.kill(holderPid, 'SIGSTOP');
    await sleep(100);
    const suspended = await storeSuspensions(store, jobs);
    assert.deepEqual(ids.map((id) => suspended.get(id)?.launcher), ids.map(() => holderPid));
    assert.equal(psRuns() - from, 2);
  });

  it('the leader watching many held locks runs one ps a look, and still tells a holder that stays suspended', async () => {
    const { ids, psRuns, holderPid } = await heldByAnother(6);
    let passes = 0;
    const watch = new HeldLocks(store, { active: () => true, onFree: () => passes++, track: (p) => p });
    try {
      for (const id of ids) assert.equal(await watch.takeOrWatch(id), undefined);
      const from = psRuns();
      await sleep(2_500); // two looks, a second apart
      assert.ok(psRuns() - from <= 3, `${psRuns() - from} ps runs for two looks at 6 locks`);
      process.kill(holderPid, 'SIGSTOP');
      const deadline = Date.now() + 8_000;
      while (passes === 0 && Date.now() < deadline) await sleep(100);
      assert.equal(passes, 1, 'a pass is asked for once the holder has stayed suspended');
      assert.equal((await watch.suspendedHolder(ids[0]!))?.pid, holderPid);
    } finally {
      watch.dispose();
    }
  });
});
