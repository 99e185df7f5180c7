/**
 * Bugs 207/211 made a failed read of /proc/<pid>/stat (EMFILE, out of descriptors) throw rather than
 * say "gone"; two callers built to read a failed look as "unknown" let that throw out: a lock wait
 * ended at once instead of waiting (livenessOfOwner), and the held-lock watch's look rejected before
 * it re-armed, so a freed lock's queued agent never had a pass (HeldLocks). The read of the live
 * holder's stat file is made to fail here (this process's fs.readFileSync, for that one path): out of
 * descriptors for real, the lock's own files could not be read either.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
// The module itself, not a copy of its names: a read is watched or made to fail by replacing fs.readFileSync.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import fs = require('node:fs');
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { jobLock } from '../../../../src/core/operations/context';
import { HeldLocks } from '../../../../src/core/scheduler/heldLocks';
import type { JobStore } from '../../../../src/core/store';
import { useProcessBackend } from '../proc/processBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child process holding the lock at `lockDir` until killed. */
async function holderOf(lockDir: string): Promise<ChildProcess> {
  const script = `
    const { OwnedLock } = require(${JSON.stringify(require.resolve('../../../../src/core/coordinator/ownedLock'))});
    new OwnedLock(${JSON.stringify(lockDir)}, 'holder').tryAcquire().then((h) => { process.stdout.write(h ? 'held\\n' : 'not held\\n'); setInterval(() => {}, 1000); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PADDOCK_PROCESS_BACKEND: 'proc' } });
  const said = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d).trim())));
  assert.equal(said, 'held');
  return child;
}

describe('a read of a lock holder\'s /proc stat that fails (EMFILE) while a waiter judges it', function () {
  this.timeout(30_000);
  useProcessBackend('proc');
  const realRead = fs.readFileSync;
  let dir: string;
  let holder: ChildProcess | undefined;
  /** Reads of `file` fail with EMFILE while `failing()` says so. */
  const failReads = (file: string, failing: () => boolean) => {
    (fs as { readFileSync: unknown }).readFileSync = function (this: unknown, p: fs.PathOrFileDescriptor, ...rest: unknown[]) {
      if (p === file && failing()) throw Object.assign(new Error(`EMFILE: too many open files, open '${p}'`), { code: 'EMFILE' });
      return (realRead as (...a: unknown[]) => unknown).call(this, p, ...rest);
    };
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(join(tmpdir(), 'paddock-statthrows-'));
  });
  afterEach(() => {
    (fs as { readFileSync: unknown }).readFileSync = realRead;
    holder?.kill('SIGKILL');
    holder = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a lock wait goes on and ends LOCK_TIMED_OUT, not at once', async function () {
    const lockDir = join(dir, 'x.lock');
    holder = await holderOf(lockDir);
    failReads(`/proc/${holder.pid}/stat`, () => true);
    const started = Date.now();
    const err = await new OwnedLock(lockDir, 'waiter').acquire(2000).then(
      () => assert.fail('taken from a live holder'),
      (e: unknown) => e as { code?: string; message: string },
    );
    assert.equal(err.code, 'LOCK_TIMED_OUT', err.message);
    assert.ok(Date.now() - started >= 2000, `waited ${Date.now() - started} ms of 2000`);
  });

  it('the held-lock watch keeps looking after a failed look, and asks for a pass once the lock is free', async function () {
    const store = { home: dir, jobDir: (id: string) => join(dir, 'jobs', id) } as unknown as JobStore;
    holder = await holderOf(jobLock(store, 'j1').lockDir);
    let passes = 0;
    const watch = new HeldLocks(store, { active: () => true, onFree: () => passes++, track: (p) => (p.catch(() => undefined), p) });
    try {
      assert.equal(await watch.takeOrWatch('j1'), undefined);
      // A look reads the holder's stat twice: is it alive (the lock's look), is it stopped. The second fails, once.
      let reads = 0;
      failReads(`/proc/${holder.pid}/stat`, () => ++reads === 2);
      await sleep(1_500); // a look a second: the first one failed
      assert.ok(reads >= 2, `the holder's stat read ${reads} times`);
      holder.kill('SIGKILL');
      const deadline = Date.now() + 5_000;
      while (passes === 0 && Date.now() < deadline) await sleep(100);
      assert.equal(passes, 1, 'a pass is asked for once the holder is gone');
    } finally {
      watch.dispose();
    }
  });
});
