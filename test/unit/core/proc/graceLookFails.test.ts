/**
 * Bug 206's sibling in a stop: `terminateProcessTree`'s looks during the grace (the tree, what still
 * runs, the look before each signal) were not tried again when a `ps` failed: one look whose runs all
 * failed threw out of the stop with the tree sent SIGTERM only, and a TERM-ignoring process ran on.
 * Portable backend; a `ps` of the test's own fails runs of the process table once a file exists.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminateProcessTree } from '../../../../src/core/proc/terminate';
import { PortablePs } from './portablePs';
import { MARKER_NAME, Spawned, running, waitFor } from './procTestUtil';
import { readProcStat } from '../../../../src/core/proc/identity';

describe('proc/terminateProcessTree while ps fails, portable backend (bug 206)', function () {
  this.timeout(40_000);
  let procs: Spawned;
  let shims: string;
  let ps: PortablePs;
  beforeEach(() => {
    procs = new Spawned();
    shims = mkdtempSync(join(tmpdir(), 'paddock-gracelook-'));
    ps = new PortablePs(shims);
  });
  afterEach(() => {
    ps.restore();
    procs.killAll();
    rmSync(shims, { recursive: true, force: true });
  });

  it('the table fails six runs in a row in the grace: the TERM-ignoring tree is still killed', async function () {
    if (!ps.real) return this.skip();
    const marker = procs.newMarker();
    const sid = procs.session("trap '' TERM; while :; do sleep 0.05; done", marker);
    await waitFor('the loop to run', () => readProcStat(sid) !== undefined);
    const trigger = join(shims, 'fail-now');
    ps.useBackend();
    ps.shim(`case " $* " in *" -A -o "*) if [ -e '${trigger}' ]; then for n in 1 2 3 4 5 6; do if mkdir '${shims}/failed-'$n 2>/dev/null; then exit 1; fi; done; fi;; esac`);
    // The failure begins once the tree has been sent SIGTERM (its first look and signal done).
    setTimeout(() => writeFileSync(trigger, ''), 300);
    const { survivors } = await terminateProcessTree({ sid, marker: { name: MARKER_NAME, value: marker }, graceMs: 1500 });
    assert.ok(existsSync(join(shims, 'failed-4')), 'a whole look failed');
    assert.deepEqual(survivors, []);
    assert.equal(running(sid), false);
  });
});
