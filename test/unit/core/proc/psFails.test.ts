/**
 * Bug 190: on the portable backend a look at one process (`ps -p PID`) that failed — killed by its
 * timeout on a loaded machine, or unable to start — was read as "no such process": a live process
 * judged gone. ps answers "gone" by exiting 1 having printed nothing; any other failure is now tried
 * again, and said (thrown) when it keeps failing. A `ps` of the test's own ahead of the real one in
 * PATH is SIGKILLed on its first runs, as its timeout would kill it.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat, readProcStatAsync } from '../../../../src/core/proc';
import { PortablePs } from './portablePs';

describe('a look at one process whose ps fails, portable backend (bug 190)', function () {
  this.timeout(30_000);
  let shims: string;
  let ps: PortablePs;
  let child: ChildProcess;

  beforeEach(() => {
    shims = mkdtempSync(join(tmpdir(), 'paddock-ps-'));
    ps = new PortablePs(shims);
    ps.useBackend();
    child = spawn('sleep', ['60'], { stdio: 'ignore' });
  });

  afterEach(() => {
    ps.restore();
    child.kill('SIGKILL');
    rmSync(shims, { recursive: true, force: true });
  });

  /** The first `failures` runs of `ps … -p …` are SIGKILLed (one each, claimed by mkdir). */
  const killFirst = (failures: number) =>
    ps.shim(`case " $* " in *" -p "*) for n in $(seq 1 ${failures}); do if mkdir '${shims}/killed-'$n 2>/dev/null; then kill -9 $$; fi; done;; esac`);

  it('a live process is still found when its ps is killed on the first runs (async and blocking)', async function () {
    if (!ps.real) return this.skip();
    killFirst(2);
    const seen = await readProcStatAsync(child.pid!);
    assert.equal(seen?.pid, child.pid, 'the live process was judged gone');
    rmSync(join(shims, 'killed-1'), { recursive: true });
    rmSync(join(shims, 'killed-2'), { recursive: true });
    assert.equal(readProcStat(child.pid!)?.pid, child.pid, 'the live process was judged gone (blocking look)');
  });

  it('a pid that names no process is still read as gone at once', async function () {
    if (!ps.real) return this.skip();
    killFirst(0);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(await readProcStatAsync(child.pid!), undefined);
    assert.equal(readProcStat(child.pid!), undefined);
  });

  it('a ps that keeps failing is said, never read as gone', async function () {
    if (!ps.real) return this.skip();
    ps.shim('case " $* " in *" -p "*) kill -9 $$;; esac');
    await assert.rejects(readProcStatAsync(child.pid!), /Could not list the processes \(ps .*-p \d+\): .*SIGKILL/);
    assert.throws(() => readProcStat(child.pid!), /Could not list the processes/);
  });
});
