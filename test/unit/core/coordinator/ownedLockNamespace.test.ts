/**
 * Bug 109, as reviewed: a lock held by a process in another pid namespace was never taken from it, so
 * one held from a namespace that ended (a coordinator's lease in a closed Flatpak) could never be taken
 * again: nothing ever led. From the initial namespace its holder is found or proven gone; from a
 * namespace beside it, the holder's heartbeat tells. Needs root (or user namespaces): skips otherwise.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readlinkSync, realpathSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { HEARTBEAT_MS, UNSEEN_HOLDER_STALE_MS } from '../../../../src/core/coordinator/lockHeartbeat';

const lockModule = path.resolve(__dirname, '../../../../src/core/coordinator/ownedLock.js');

function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * In a new pid namespace, takes the lock at `lock` and prints its owner file's folder, then holds it
 * until `end`: its namespace's pid 1 exits, the kernel kills the holder, and nothing of it is left.
 */
function holdInNamespace(lock: string): { held: Promise<string>; end: () => Promise<void> } {
  const holder = `const { OwnedLock } = require(${JSON.stringify(lockModule)});
    new OwnedLock(${JSON.stringify(lock)}, 'test holder').tryAcquire().then((held) => { console.log(held ? require('fs').readlinkSync(${JSON.stringify(lock)}) : 'refused'); setInterval(() => {}, 1000); });`;
  const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'bash', '-c', '"$0" -e "$1" & read line', process.execPath, holder], { stdio: ['pipe', 'pipe', 'inherit'] });
  const held = new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { held, end: () => new Promise<void>((r) => (child.stdin.end(), child.once('close', () => r()))) };
}

/** Whether a taker in another new pid namespace (beside the holder's) gets the lock. */
function takenFromBeside(lock: string): string {
  return execFileSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, '-e', `const { OwnedLock } = require(${JSON.stringify(lockModule)});
    new OwnedLock(${JSON.stringify(lock)}, 'test taker').tryAcquire().then(async (held) => { console.log(held ? 'taken' : 'refused'); await held?.release(); });`], { encoding: 'utf8', timeout: 20_000 }).trim();
}

describe('coordinator/ownedLock: a holder in another pid namespace', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(function () {
    if (!namespacesWork()) this.skip(); // unshare --pid needs root (or user namespaces)
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'paddock-nslock-')));
  });
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('a lock held from a namespace that ended is taken from the initial namespace', async () => {
    const lock = path.join(dir, 'leader.lock');
    const holder = holdInNamespace(lock);
    assert.notEqual(await holder.held, 'refused');
    assert.equal(await new OwnedLock(lock, 'outside').tryAcquire(), undefined, 'its holder runs: held');
    await holder.end(); // its namespace ends with it
    const taken = await new OwnedLock(lock, 'outside').tryAcquire();
    assert.ok(taken, 'its holder is gone: the lock is free again, never held for good');
    await taken.release();
  });

  it('from a namespace beside the holder\'s, held while its heartbeat is fresh, taken once it is silent', async () => {
    const lock = path.join(dir, 'leader.lock');
    const holder = holdInNamespace(lock);
    try {
      const folder = await holder.held;
      assert.equal(takenFromBeside(lock), 'refused', 'a holder out of sight that beats is held');
      // Its heartbeat silent past the bound, as when its namespace ended (or it was killed) out of sight.
      const silent = new Date(Date.now() - UNSEEN_HOLDER_STALE_MS - 5_000);
      utimesSync(path.join(dir, folder, 'owner.json'), silent, silent);
      assert.equal(takenFromBeside(lock), 'taken', 'never held for good');
    } finally {
      await holder.end();
    }
  });
});

describe('coordinator/ownedLock: the heartbeat of a held lock', function () {
  this.timeout(60_000);

  it('touches its owner file while the lock is held', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'paddock-beat-')));
    try {
      const lock = path.join(dir, 'a.lock');
      const held = await new OwnedLock(lock, 'beating').tryAcquire();
      assert.ok(held);
      const owner = path.join(dir, readlinkSync(lock), 'owner.json');
      const old = new Date(Date.now() - UNSEEN_HOLDER_STALE_MS);
      utimesSync(owner, old, old);
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS + 1_000));
      assert.ok(Date.now() - statSync(owner).mtimeMs < HEARTBEAT_MS + 1_000, 'beaten while held');
      await held.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
