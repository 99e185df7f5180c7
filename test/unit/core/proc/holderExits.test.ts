/**
 * Bug 228: on the portable backend a process found holding a folder (`lsof`) that exited before the
 * look at the holders' command lines (`ps`), its parent not yet having reaped it, was still named a
 * holder, as `[sleep] <defunct>`: ps lists an unreaped process. /proc finds no cwd for one. A `ps` of
 * the test's own ahead of the real one in PATH kills the holder just before that look, and waits
 * until it is a zombie (its parent execs into a `sleep` that never reaps it).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdersOf } from '../../../../src/core/proc/holders';
import { readProcStat } from '../../../../src/core/proc';
import { PortablePs } from './portablePs';
import { waitFor } from './procTestUtil';

describe('a holder that exits as its command line is looked at, portable backend (bug 228)', function () {
  this.timeout(30_000);
  let dir: string;
  let ps: PortablePs;
  let parent: ChildProcess;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-holder-'));
    mkdirSync(join(dir, 'held'));
    ps = new PortablePs(join(dir, 'shims'));
    mkdirSync(join(dir, 'shims'));
  });

  afterEach(() => {
    ps.restore();
    parent?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is not named a holder (nor `[sleep] <defunct>`)', async function () {
    if (!ps.real) return this.skip();
    ps.useBackend();
    const script = `(cd '${join(dir, 'held')}' && exec sleep 1007) & echo $! > '${join(dir, 'pid')}'; cd /; exec sleep 1008`;
    parent = spawn('sh', ['-c', script], { stdio: 'ignore' });
    const holder = await waitFor('the holder', () => {
      const pid = Number(readFileSync(join(dir, 'pid'), { encoding: 'utf8', flag: 'a+' }).trim());
      return pid > 0 && readProcStat(pid)?.comm === 'sleep' && readProcStat(parent.pid!)?.comm === 'sleep' ? pid : undefined;
    });
    assert.deepEqual((await holdersOf(join(dir, 'held'))).map((h) => h.command), ['sleep 1007'], 'found while it runs');
    // The holders' command-line look (`-o pid=,…args=`): the holder is killed first and left unreaped.
    ps.shim(`case " $* " in *"args="*" -p "*) kill -9 ${holder}; until ${ps.real} -o stat= -p ${holder} | grep -q Z; do sleep 0.01; done;; esac`);
    assert.deepEqual(await holdersOf(join(dir, 'held')), []);
    assert.equal(readProcStat(holder)?.state, 'Z', 'exited, not yet reaped');
  });
});
