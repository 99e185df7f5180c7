/**
 * Bug 108: a stop that came just after the agent exited by itself. The worker records an agent's
 * own end only once what it left running is settled (a second's grace, then TERM and KILL): a stop
 * asked meanwhile took the stop path and recorded `cancelled` (detail "stopped") over an exit 0.
 * The stop is asked the moment the agent's main process is seen gone while the record still says
 * running, so it lands in that window every time. Both process backends.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { findByEnvMarker, readProcStat } from '../../../../src/core/proc';
import type { Coordinator } from '../../../../src/core/coordinator';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { useProcessBackend } from '../proc/processBackend';

/**
 * Starts a daemon in its own session that ignores SIGTERM (its end takes the whole grace), then exits 0
 * once `go` exists: a fixed 0.3 s was over before a loaded CI read `running` (portable backend).
 */
const agent = (go: string) => ['sh', '-c', `setsid sh -c "trap '' TERM; exec sleep 603" >/dev/null 2>&1 & while [ ! -e '${go}' ]; do sleep 0.05; done; exit 0`];

/** The workers' `ps e` (the exit scan's look for the marker) takes 0.6 s: a `ps` ahead of the real one in their PATH. */
function slowEnvironmentListing(sb: CoordinatorSandbox): void {
  const real = ['/usr/bin/ps', '/bin/ps'].find((p) => existsSync(p));
  if (!real) return;
  const shims = join(sb.root, 'shims');
  mkdirSync(shims, { recursive: true });
  writeFileSync(join(shims, 'ps'), `#!/bin/sh\ncase " $* " in *" e "*) sleep 0.6;; esac\nexec ${real} "$@"\n`, { mode: 0o755 });
  sb.env.PATH = `${shims}${delimiter}${sb.env.PATH}`;
}

for (const backend of ['proc', 'portable'] as const) {
  describe(`a stop asked as the agent exits by itself, ${backend} backend`, function () {
    this.timeout(60_000);
    let sb!: CoordinatorSandbox;
    useProcessBackend(backend);
    useCoordinatorSandbox((fresh) => (sb = fresh));

    /**
     * Starts the agent, tells it to exit, and returns once its main process is gone and its record still
     * says running. Under load (a CI at load 13–16 on 2 cores) the portable backend missed that window:
     * the agent's fixed 0.3 s was over before `running` was read, and the worker's exit scan recorded
     * the end before this test's look (a `ps` run) saw the exit. The agent now exits when told, and on
     * the portable backend the worker's environment listing (its exit scan's first look) is slowed.
     */
    async function exitedButRunning(c: Coordinator): Promise<string> {
      if (backend === 'portable') slowEnvironmentListing(sb);
      const go = join(sb.root, 'go');
      const job = await c.start({ repo: sb.repo, command: agent(go) });
      const running = await sb.waitForState(job.id, ['running']);
      const leader = running.lifecycle.pid!;
      writeFileSync(go, '');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const stat = readProcStat(leader);
        if (!stat || stat.state === 'Z' || stat.state === 'X') break;
        if (Date.now() > deadline) throw new Error('the agent did not exit');
        await sleep(10);
      }
      assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running', 'its end is not recorded yet: the stop lands in the window');
      return job.id;
    }

    it('records the end that happened (completed, exit 0), and what it left running is ended', async () => {
      const c = sb.coordinator();
      const id = await exitedButRunning(c);
      const report = await c.stop(id);
      assert.equal(report.stopped, true, report.reason ?? '');
      assert.equal(report.state, 'completed');
      const done = await sb.store.read(id);
      assert.equal(done.lifecycle.state, 'completed');
      assert.equal(done.lifecycle.exitCode, 0);
      assert.equal(lifecycleDetail(done), 'exit 0; ended 1 process it left running');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id), []);
    });

    it('with endLeftoversOnExit off: completed, and the stop ends what it listed as left running', async () => {
      const c = sb.coordinator({ endLeftoversOnExit: false });
      const id = await exitedButRunning(c);
      const report = await c.stop(id);
      assert.equal(report.stopped, true, report.reason ?? '');
      assert.equal(report.state, 'completed');
      assert.deepEqual(report.ended.map((p) => p.command), ['sleep']);
      const done = await sb.store.read(id);
      assert.equal(done.lifecycle.state, 'completed');
      // Ended by this stop, whichever way it came (bug 114, review): not said left running any more.
      assert.equal(lifecycleDetail(done), 'exit 0; stopped 1 process it left running');
      assert.deepEqual(done.leftovers, []);
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id), []);
    });
  });
}
