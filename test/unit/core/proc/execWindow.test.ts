/**
 * Bug 208: a process caught in execve(2) shows an empty environment for a moment (/proc/<pid>/environ
 * reads '', and `ps e` shows no NAME=value), so the marker's look missed it: an agent's escaped
 * daemon caught at exec by the exit scan was left running. A marked process in its own session exec's
 * itself in a loop (each exec such a moment) while the marker's look runs again and again; every look
 * must find it. Both backends.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findByEnvMarker, readProcStat, treeMembers } from '../../../../src/core/proc';
import { processBackend } from '../../../../src/core/proc/backend';
import { MARKER_NAME, Spawned, waitFor } from './procTestUtil';
import { useProcessBackend } from './processBackend';

for (const [backend, looks] of [['proc', 100], ['portable', 30]] as const) {
  describe(`the marker's look at a process caught at exec, ${backend} backend (bug 208)`, function () {
    this.timeout(90_000);
    useProcessBackend(backend);
    let procs: Spawned;
    let dir: string;
    let scripts = 0;
    beforeEach(() => {
      procs = new Spawned();
      dir = mkdtempSync(join(tmpdir(), 'paddock-exec-'));
    });
    afterEach(() => {
      procs.killAll();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A marked process (its own session) that exec's itself over and over: the same pid throughout. */
    async function execLooping(marker: string): Promise<number> {
      // A script of its own each: one rewritten under a running shell ends it.
      const script = join(dir, `again-${++scripts}.sh`);
      writeFileSync(script, `n=$1\n[ "$n" -gt 0 ] && exec sh '${script}' $((n-1))\nexec sleep 600\n`);
      const sid = procs.session(`exec sh '${script}' 1000000`, marker);
      // Seen marked once: forked but not yet exec'd, it shows this process's environment (no marker).
      await waitFor('the exec loop to run, marked', () => findByEnvMarker(MARKER_NAME, marker).some((p) => p.pid === sid));
      return sid;
    }

    it(`finds it at every one of ${looks} looks, blocking and not`, async function () {
      const marker = procs.newMarker();
      const pid = await execLooping(marker);
      let missedAsync = 0;
      let missedSync = 0;
      for (let i = 0; i < looks; i++) {
        if (!(await treeMembers(undefined, { name: MARKER_NAME, value: marker })).some((p) => p.pid === pid)) missedAsync++;
        if (!findByEnvMarker(MARKER_NAME, marker).some((p) => p.pid === pid)) missedSync++;
      }
      assert.ok(readProcStat(pid) !== undefined, 'still running');
      // A process that never stops exec'ing can be caught mid-exec at every read of one look: on the
      // portable backend a look's reads are `ps` runs of tens of ms, and one of 30 looks so caught was
      // seen in a loaded CI. Before bug 208 the same looks missed it 3 and 6 times (async, blocking).
      const allowed = backend === 'portable' ? 1 : 0;
      assert.ok(missedAsync <= allowed && missedSync <= allowed, `missed at ${missedAsync} (async) and ${missedSync} (blocking) of ${looks} looks`);
    });

    if (backend === 'proc') {
      // The usage pass reads a process's marker once and kept what it read by pid and start time,
      // which an exec does not change: an empty read (at exec) kept it unmarked for its life. Made
      // deterministic: empty for two seconds (env -i), then exec'd with the marker, same pid.
      it('the usage pass reads an empty environment again: a process exec\'d with the marker since is counted', async function () {
        const marker = procs.newMarker();
        const child = procs.track(spawn('env', ['-i', '/bin/sh', '-c', `sleep 2; exec /usr/bin/env ${MARKER_NAME}=${marker} sleep 600`], { stdio: 'ignore' }));
        await waitFor('the empty environment', () => readProcStat(child.pid!)?.comm === 'sh');
        const usage = async () => (await processBackend().usageSnapshot(MARKER_NAME, [])).processes.find((p) => p.pid === child.pid)?.marker;
        assert.equal(await usage(), undefined, 'precondition: read empty, not counted');
        await waitFor('the exec', () => readProcStat(child.pid!)?.comm === 'sleep');
        assert.equal(await usage(), marker);
      });
    }
  });
}
