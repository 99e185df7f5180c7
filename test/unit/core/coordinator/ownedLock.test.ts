import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { identityOf } from '../../../../src/core/proc';

describe('OwnedLock', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('excludes a second owner in the same process until released', async () => {
    const a = new OwnedLock(join(dir, 'x.lock'), 'a');
    const b = new OwnedLock(join(dir, 'x.lock'), 'b');
    const held = await a.tryAcquire();
    assert.ok(held);
    assert.equal(await b.tryAcquire(), undefined);
    assert.equal((await b.owner())?.purpose, 'a');
    await held.release();
    const again = await b.tryAcquire();
    assert.ok(again);
    await again.release();
  });

  it('gives mutual exclusion to many concurrent critical sections', async () => {
    let inside = 0;
    let maxInside = 0;
    let count = 0;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        new OwnedLock(join(dir, 'm.lock'), `w${i}`).with(20_000, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setTimeout(r, 2));
          count++;
          inside--;
        }),
      ),
    );
    assert.equal(maxInside, 1);
    assert.equal(count, 30);
  });

  it('passes on at once when its owner process is killed', async () => {
    const lockDir = join(dir, 'dead.lock');
    // A child takes the lock (same format: mkdir + owner.json with its identity), then is SIGKILLed.
    // Its identity comes from the same process backend as ours (/proc, or ps with PADDOCK_PROCESS_BACKEND=portable).
    const script = `
      const fs = require('fs');
      const { startTime, bootId } = require(${JSON.stringify(require.resolve('../../../../src/core/proc/identity'))}).identityOf(process.pid);
      fs.mkdirSync(${JSON.stringify(lockDir)});
      fs.writeFileSync(${JSON.stringify(join(lockDir, 'owner.json'))}, JSON.stringify({ pid: process.pid, startTime, bootId, token: 'c'.repeat(32), purpose: 'child', since: new Date().toISOString() }));
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const lock = new OwnedLock(lockDir, 'me');
    assert.equal(await lock.tryAcquire(), undefined, 'a live owner keeps it');
    assert.equal((await lock.owner())?.pid, child.pid);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const held = await lock.acquire(5000);
    const owner = JSON.parse(readFileSync(join(lockDir, 'owner.json'), 'utf8'));
    assert.equal(owner.pid, process.pid);
    assert.equal(owner.startTime, identityOf(process.pid)?.startTime);
    await held.release();
    assert.equal(existsSync(lockDir), false);
  });

  it('does not release a lock that was taken over by someone else', async () => {
    const lockDir = join(dir, 'y.lock');
    const held = await new OwnedLock(lockDir, 'a').tryAcquire();
    rmSync(lockDir, { recursive: true });
    const other = await new OwnedLock(lockDir, 'b').tryAcquire();
    assert.ok(other);
    await held!.release();
    assert.ok(existsSync(lockDir), "releasing a lost lock must not remove the new owner's");
    await other.release();
  });
});
