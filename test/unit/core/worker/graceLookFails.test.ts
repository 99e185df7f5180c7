/**
 * Bug 206: the looks of an ended agent's grace (what is left of it after its exit scan, looked at
 * every 50 ms, then TERM, then KILL) were not tried again when a `ps` failed, unlike the exit scan
 * itself (bug 189): one look whose runs all failed (4 runs within half a second, a brief failure
 * under load) threw out of the whole settling, so the TERM-ignoring daemon the scan had found was
 * never sent SIGKILL and ran on, with the record still saying it was being ended. The worker's `ps`
 * is a shim ahead of the real one in PATH that fails the next runs of the process table once the
 * test has seen the agent's end recorded (its exit scan done). Real workers, real PTYs.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { findByEnvMarker } from '../../../../src/core/proc';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';

const REAL_PS = ['/usr/bin/ps', '/bin/ps'].find((p) => existsSync(p));

describe('an ended agent\'s grace while ps fails, portable backend (bug 206)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useProcessBackend('portable');
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('the process table fails six runs in a row during the grace: its TERM-ignoring daemon is still ended', async function () {
    if (!REAL_PS) return this.skip();
    const shims = join(sb.root, 'shims');
    mkdirSync(shims);
    const trigger = join(sb.root, 'fail-now');
    // Six runs of the table once the trigger exists: more than one look's 4 tries (mkdir: one each, atomically).
    const body = `case " $* " in *" -A -o "*) if [ -e '${trigger}' ]; then for n in 1 2 3 4 5 6; do if mkdir '${shims}/failed-'$n 2>/dev/null; then exit 1; fi; done; fi;; esac`;
    writeFileSync(join(shims, 'ps'), `#!/bin/sh\n${body}\nexec ${REAL_PS} "$@"\n`, { mode: 0o755 });
    sb.env.PATH = `${shims}${delimiter}${sb.env.PATH}`;
    const agent = `setsid sh -c "trap '' TERM; exec sleep 632" >/dev/null 2>&1 & sleep 0.3; exit 0`;
    const c = sb.coordinator({ stopGraceSeconds: 2 });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', agent] });
    try {
      // Recorded ended: the exit scan is done and found the daemon; the grace has begun.
      const ended = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 20_000);
      writeFileSync(trigger, '');
      assert.match(lifecycleDetail(ended) ?? '', /ending 1 process/);
      const settled = await sb.waitFor(job.id, (j) => !/ending/.test(lifecycleDetail(j) ?? ''), 25_000).catch(() => undefined);
      assert.ok(existsSync(join(shims, 'failed-4')), 'a whole look failed');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id).map((p) => p.comm), [], 'the daemon was ended');
      assert.equal(settled && lifecycleDetail(settled), 'exit 0; ended 1 process it left running');
    } finally {
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', job.id)) process.kill(p.pid, 'SIGKILL');
    }
  });
});
