/**
 * Bug 189: on the portable backend a `ps` listing that failed (exit 1 with nothing printed, as at the
 * process limit; or cut short, as when its timeout kills it mid-output) was read as a listing with
 * no process in it. At an agent's exit that made its `setsid` daemon invisible: the end was recorded
 * with nothing left running (*exit 0*), no grace, and the daemon ran on, never ended. The worker's
 * `ps` is a shim ahead of the real one in PATH that fails a few runs once the agent says it is about
 * to exit; a listing now tells a failed run apart and tries again. Real workers, real PTYs.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { findByEnvMarker } from '../../../../src/core/proc';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';

const REAL_PS = ['/usr/bin/ps', '/bin/ps'].find((p) => existsSync(p));

/** What the shim does on a failing run: `exit 1` alone, or the real listing's first lines and then exit 1. */
const FAILURES = {
  'fails (exit 1, nothing printed)': 'exit 1',
  'is cut short (its first lines, then exit 1)': `${REAL_PS} "$@" | head -n 3; exit 1`,
};

/** Which listing fails: the environments (`ps e`, the marker's look) or the table (`ps -A`). */
const LISTINGS = {
  'the environment listing': '*" e "*',
  'the process table': '*" -A -o "*',
};

describe('an agent exits while ps fails, portable backend (bug 189)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useProcessBackend('portable');
  useCoordinatorSandbox((fresh) => (sb = fresh));

  for (const [listing, pattern] of Object.entries(LISTINGS)) {
    for (const [how, failure] of Object.entries(FAILURES)) {
      it(`${listing} ${how} three times as it exits: its TERM-ignoring daemon is found and ended`, async function () {
        if (!REAL_PS) return this.skip();
        const shims = join(sb.root, 'shims');
        mkdirSync(shims);
        const trigger = join(sb.root, 'exiting');
        // The first three runs of that listing once the agent is about to exit fail (mkdir: one each, atomically).
        const body = `case " $* " in ${pattern}) if [ -e '${trigger}' ]; then for n in 1 2 3; do if mkdir '${shims}/failed-'$n 2>/dev/null; then ${failure}; fi; done; fi;; esac`;
        writeFileSync(join(shims, 'ps'), `#!/bin/sh\n${body}\nexec ${REAL_PS} "$@"\n`, { mode: 0o755 });
        sb.env.PATH = `${shims}${delimiter}${sb.env.PATH}`;
        const agent = `setsid sh -c "trap '' TERM; exec sleep 631" >/dev/null 2>&1 & sleep 0.3; : > '${trigger}'; exit 0`;
        const c = sb.coordinator({ stopGraceSeconds: 2 });
        const job = await c.start({ repo: sb.repo, command: ['sh', '-c', agent] });
        try {
          await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 20_000);
          const settled = await sb.waitFor(job.id, (j) => !/ending/.test(lifecycleDetail(j) ?? ''), 20_000);
          assert.ok(existsSync(join(shims, 'failed-1')), 'the failing ps ran');
          assert.equal(lifecycleDetail(settled), 'exit 0; ended 1 process it left running');
          assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'the daemon was ended');
        } finally {
          for (const p of findByEnvMarker('PADDOCK_JOB_ID', job.id)) process.kill(p.pid, 'SIGKILL');
        }
      });
    }
  }
});
