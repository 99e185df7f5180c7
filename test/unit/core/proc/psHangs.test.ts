/**
 * Bug 192: a `ps` that hangs (a loaded machine) on the portable backend. Each of a look's 4 runs had
 * its own 10 s timeout, and a run killed by it was run again: a blocking look stood the event loop
 * still for 40 s, and the agent's exit scan (its deadline judged only after a whole try) took 40 s
 * and more while its end went unrecorded. A look's runs now share one 10 s; the scan judges its
 * deadline before each try. A `ps` of the test's own ahead of the real one in PATH hangs.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat } from '../../../../src/core/proc';
import { exitScan } from '../../../../src/core/worker/leftovers';
import { PortablePs } from './portablePs';

/** One run's timeout (psListing.ts): a look takes no longer than this and some slack on a loaded machine. */
const ONE_RUN_MS = 10_000;
const SLACK_MS = 4_000;

describe('a ps that hangs, portable backend (bug 192)', function () {
  this.timeout(60_000);
  let shims: string;
  let ps: PortablePs;
  let child: ChildProcess;

  beforeEach(() => {
    shims = mkdtempSync(join(tmpdir(), 'paddock-pshang-'));
    ps = new PortablePs(shims);
    ps.useBackend();
    child = spawn('sleep', ['120'], { stdio: 'ignore' });
  });

  afterEach(() => {
    ps.restore();
    child.kill('SIGKILL');
    rmSync(shims, { recursive: true, force: true });
  });

  it('a blocking look at one process takes one run\'s timeout, not one per try', function () {
    if (!ps.real) return this.skip();
    // exec: the run's timeout kills the hanging process itself (a child of sh would hold the pipe open).
    ps.shim(`case " $* " in *" -p "*) exec sleep 60;; esac`);
    const started = Date.now();
    assert.throws(() => readProcStat(child.pid!), /Could not list the processes .*did not finish in the time it had/);
    const took = Date.now() - started;
    assert.ok(took < ONE_RUN_MS + SLACK_MS, `the blocking look took ${took} ms`);
  });

  it('the exit scan with a hanging listing gives up within its 10 s, and says so', async function () {
    if (!ps.real) return this.skip();
    ps.shim(`case " $* " in *" e "*|*" -A -o "*) exec sleep 60;; esac`);
    const said: string[] = [];
    const started = Date.now();
    const found = await exitScan('job-hangs', child.pid!, (why) => said.push(why));
    const took = Date.now() - started;
    assert.equal(found, undefined, 'a look that failed is not "nothing left"');
    assert.match(said.join('\n'), /could not look for processes the agent left running: Could not list the processes/);
    assert.ok(took < ONE_RUN_MS + SLACK_MS, `the exit scan took ${took} ms`);
  });
});
