/**
 * A stop on a store nothing can be written in (bug 141) must stay a stop: the worker cannot record
 * `cancelled`, and a reader used to judge the gone worker `orphaned` once the store could be written
 * again — a crash, which an automatic restart ran again. Needs root (a read-only bind mount): skips otherwise.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('coordinator: a stop on a read-only store stays a stop (bug 141)', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((s) => (sb = s));

  beforeEach(function () {
    if (process.getuid?.() !== 0) this.skip();
  });

  it('is recorded cancelled once the store can be written, and automatic restart leaves it stopped', async () => {
    const c = sb.coordinator({ autoRestart: true, recoveryLimit: 1 }, { tickMs: 100 });
    const job = await c.start({ repo: sb.repo, command: ['sleep', '600'] });
    await sb.waitForState(job.id, ['running']);
    execFileSync('mount', ['--bind', sb.home, sb.home]);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          execFileSync('mount', ['-o', 'remount,bind,ro', sb.home], { stdio: 'pipe' });
          break;
        } catch (err) {
          if (attempt >= 200) throw err;
          await sleep(10);
        }
      }
      const report = await c.stop(job.id);
      assert.equal(report.stopped, true, report.reason ?? '');
      assert.equal(report.state, 'cancelled');
      assert.deepEqual(report.unwritable, { why: 'the file system is read-only', kept: 'kept' });
    } finally {
      execFileSync('umount', ['-l', sb.home]);
    }
    // Several scheduler passes with the store writable again: the one that reads it records the stop.
    await sleep(3000);
    const after = await sb.store.read(job.id);
    assert.equal(after.lifecycle.generation, 1, `restarted: ${after.lifecycle.state} ${after.lifecycle.detail}`);
    assert.equal(after.lifecycle.state, 'cancelled', after.lifecycle.detail ?? '');
    assert.equal(after.recoveries, 0);
  });
});
