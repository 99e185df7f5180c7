/**
 * The exit scan's own retries (bug 189), which the worker tests' short failures (within one listing's
 * 4 tries) never reached: a look that fails for about a second is tried again until it answers, and
 * one that keeps failing is said, never read as "nothing left". Portable backend; a `ps` of the
 * test's own ahead of the real one in PATH fails while a file exists.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitScan } from '../../../../src/core/worker/leftovers';
import { AGENT_MARKER_ENV } from '../../../../src/core/worker/agentMarker';
import { PortablePs } from '../proc/portablePs';

describe('the exit scan while its look fails, portable backend', function () {
  this.timeout(40_000);
  let shims: string;
  let ps: PortablePs;
  let child: ChildProcess;
  const jobId = `job-scan-${process.pid}`;

  beforeEach(() => {
    shims = mkdtempSync(join(tmpdir(), 'paddock-scanretry-'));
    ps = new PortablePs(shims);
    ps.useBackend();
    child = spawn('sleep', ['60'], { stdio: 'ignore', env: { ...process.env, [AGENT_MARKER_ENV]: jobId } });
  });

  afterEach(() => {
    ps.restore();
    child.kill('SIGKILL');
    rmSync(shims, { recursive: true, force: true });
  });

  it('a look failing for about a second (beyond one listing\'s tries) still finds the agent\'s process', async function () {
    if (!ps.real) return this.skip();
    const failing = join(shims, 'failing');
    writeFileSync(failing, '');
    ps.shim(`case " $* " in *" e "*|*" -A -o "*) [ -e '${failing}' ] && exit 1;; esac`);
    setTimeout(() => rmSync(failing, { force: true }), 1200);
    const said: string[] = [];
    const found = await exitScan(jobId, 1, (why) => said.push(why));
    assert.ok(!existsSync(failing), 'answered only once the failure was over');
    assert.deepEqual(said, []);
    assert.deepEqual(found?.map((p) => p.pid), [child.pid]);
  });

  it('a look that keeps failing is said, not "nothing left"', async function () {
    if (!ps.real) return this.skip();
    ps.shim(`case " $* " in *" e "*|*" -A -o "*) exit 1;; esac`);
    const said: string[] = [];
    const found = await exitScan(jobId, 1, (why) => said.push(why));
    assert.equal(found, undefined);
    assert.match(said.join('\n'), /^could not look for processes the agent left running: Could not list the processes/);
  });
});
