/**
 * A record write while the disk is full for a moment (another process's file, then removed): it waits
 * and lands, as it did before bug 141's fix made every lock try once (a worker's last write then failed,
 * the agent read as orphaned, and an automatic restart ran a finished agent again). A read-only store
 * stays so, and fails at once. Mounting needs root: these skip otherwise.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_LOCK_OPTIONS, withLock } from '../../../../src/core/store/locks';
import { fillDisk, freeDisk, mountTmpfsOrSkip } from './fullDisk';

describe('store/locks on a full or read-only disk', function () {
  this.timeout(60_000);
  let dir = '';
  let layers = 0;

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-lockdisk-'));
    // Few inodes: the lock's folder cannot be made once they are used up, as on a full ext4.
    mountTmpfsOrSkip(this, dir, 'size=1m,nr_inodes=64,mode=0700');
    layers = 1;
    fs.mkdirSync(path.join(dir, 'job'));
  });
  afterEach(() => {
    for (; layers > 0; layers--) execFileSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Folders until no inode is left; returns a function that removes them. */
  function useUpInodes(): () => void {
    const made: string[] = [];
    try {
      for (let n = 0; ; n++) {
        const d = path.join(dir, `d${n}`);
        fs.mkdirSync(d);
        made.push(d);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    }
    return () => made.forEach((d) => fs.rmdirSync(d));
  }

  it('a write while the disk is full for a moment waits and lands once space is back', async () => {
    fillDisk(dir);
    const free = useUpInodes();
    assert.throws(() => fs.mkdirSync(path.join(dir, 'job', 'probe')), { code: 'ENOSPC' });
    const began = Date.now();
    setTimeout(() => {
      free();
      freeDisk(dir);
    }, 1500);
    const record = path.join(dir, 'job', 'record.json');
    await withLock(path.join(dir, 'job', 'record.lock'), 'agent x', DEFAULT_LOCK_OPTIONS, async () => fs.writeFileSync(record, '{"state":"completed"}'));
    assert.equal(fs.readFileSync(record, 'utf8'), '{"state":"completed"}');
    assert.ok(Date.now() - began >= 1400, 'it waited for the space');
  });

  it('on a read-only store it fails at once, not after the whole wait', async () => {
    execFileSync('mount', ['--bind', dir, dir]);
    layers++;
    execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
    const began = Date.now();
    await assert.rejects(
      withLock(path.join(dir, 'job', 'record.lock'), 'agent x', DEFAULT_LOCK_OPTIONS, async () => undefined),
      { code: 'EROFS' },
    );
    assert.ok(Date.now() - began < 2000, `took ${Date.now() - began} ms`);
  });
});
