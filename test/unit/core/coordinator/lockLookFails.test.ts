/**
 * A lock wait while every look at the processes fails for a while (portable backend, a `ps -A` that
 * fails under load): bug 189 made a failed listing throw, and a lock's owner look let it through, so
 * a two-minute wait ended at once with "Could not list the processes" instead of waiting, and
 * LOCK_TIMED_OUT was lost. A failed look is "still held, look again next turn" (bug 191).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { ownIdentity } from '../../../../src/core/proc';
import { PortablePs } from '../proc/portablePs';

/** A child process holding the lock at `lockDir` (taken with OwnedLock, on the portable backend) until killed. */
async function holderOf(lockDir: string): Promise<ChildProcess> {
  const script = `
    const { OwnedLock } = require(${JSON.stringify(require.resolve('../../../../src/core/coordinator/ownedLock'))});
    new OwnedLock(${JSON.stringify(lockDir)}, 'holder').tryAcquire().then((h) => { process.stdout.write(h ? 'held\\n' : 'not held\\n'); setInterval(() => {}, 1000); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PADDOCK_PROCESS_BACKEND: 'portable' } });
  const said = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d).trim())));
  assert.equal(said, 'held');
  return child;
}

describe('a lock wait while the look at the processes fails (portable backend)', function () {
  this.timeout(30_000);
  let dir: string;
  let ps: PortablePs;
  let holder: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-locklook-'));
    ps = new PortablePs(mkdtempSync(join(dir, 'shims-')));
  });
  afterEach(() => {
    ps.restore();
    holder?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a brief failure: the wait goes on and ends LOCK_TIMED_OUT, the live holder keeps its lock', async function () {
    if (!ps.real) return this.skip();
    const lockDir = join(dir, 'x.lock');
    holder = await holderOf(lockDir);
    ps.useBackend();
    assert.ok(ownIdentity(), 'read before the failing ps');
    // The first 6 table runs fail (more than one listing's tries); the rest answer.
    ps.shim(`case " $* " in *" -A -o "*) for n in 1 2 3 4 5 6; do if mkdir '${dir}/run-'$n 2>/dev/null; then exit 1; fi; done;; esac`);
    const started = Date.now();
    const err = await new OwnedLock(lockDir, 'waiter').acquire(2500, { sayWhenSuspended: true }).then(
      () => assert.fail('taken from a live holder'),
      (e: unknown) => e as { code?: string; message: string },
    );
    assert.equal(err.code, 'LOCK_TIMED_OUT', err.message);
    assert.match(err.message, new RegExp(`by pid ${holder.pid} \\(holder\\)`));
    assert.ok(Date.now() - started >= 2500, 'waited its whole time');
  });

  it('a persistent failure: still LOCK_TIMED_OUT, naming no holder it could not see', async function () {
    if (!ps.real) return this.skip();
    const lockDir = join(dir, 'x.lock');
    holder = await holderOf(lockDir);
    ps.useBackend();
    assert.ok(ownIdentity(), 'read before the failing ps');
    ps.shim(`case " $* " in *" -A -o "*) exit 1;; esac`);
    const lock = new OwnedLock(lockDir, 'waiter');
    const err = await lock.acquire(1500).then(
      () => assert.fail('taken from a holder nobody could see'),
      (e: unknown) => e as { code?: string; message: string },
    );
    assert.equal(err.code, 'LOCK_TIMED_OUT', err.message);
    assert.doesNotMatch(err.message, /by pid/);
    assert.equal((await lock.owner())?.pid, holder.pid, 'held as far as anyone can tell');
  });
});
