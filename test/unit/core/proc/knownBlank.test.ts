/**
 * Bug 208's read again of a process shown with no environment (caught at exec) was made at every
 * marker look for a process that has none for good (`env -i` here; ssh-agent, pid 1 as root, whose
 * environment ps may not show): two more `ps` runs and their pauses per look on the portable backend
 * (2–4× slower looks), four more reads 10 ms apart on /proc. One that stayed empty through the reads
 * again at three looks is now remembered (pid, start time, name) and read once per look; once it execs under a new
 * name with the marker, it is found. Both backends.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
// The module itself, not a copy of its names: a read is watched or made to fail by replacing fs.readFileSync.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import fs = require('node:fs');
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findByEnvMarker, readProcStat, treeMembers } from '../../../../src/core/proc';
import { MARKER_NAME, Spawned, waitFor } from './procTestUtil';
import { PortablePs } from './portablePs';
import { useProcessBackend } from './processBackend';

for (const backend of ['proc', 'portable'] as const) {
  describe(`the marker's look at a process with no environment, ${backend} backend (bug 208)`, function () {
    this.timeout(60_000);
    useProcessBackend(backend);
    const realRead = fs.readFileSync;
    let procs: Spawned;
    let dir: string;
    let ps: PortablePs;
    beforeEach(() => {
      procs = new Spawned();
      dir = fs.mkdtempSync(join(tmpdir(), 'paddock-blank-'));
      ps = new PortablePs(dir);
    });
    afterEach(() => {
      (fs as { readFileSync: unknown }).readFileSync = realRead;
      ps.restore();
      procs.killAll();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Counts, from now on, what reads `pid`'s environment again: `ps e … -p` runs, or reads of /proc/<pid>/environ. */
    function countReads(pid: number): () => number {
      if (backend === 'portable') {
        const runs = join(dir, 'runs');
        fs.writeFileSync(runs, '');
        ps.useBackend();
        ps.shim(`case " $* " in *" e -ww "*" -p "*) echo run >> '${runs}';; esac`);
        return () => realRead(runs, 'utf8').split('\n').filter((l) => l !== '').length;
      }
      let reads = 0;
      (fs as { readFileSync: unknown }).readFileSync = function (this: unknown, p: fs.PathOrFileDescriptor, ...rest: unknown[]) {
        if (p === `/proc/${pid}/environ`) reads++;
        return (realRead as (...a: unknown[]) => unknown).call(this, p, ...rest);
      };
      return () => reads;
    }

    it('reads it again at the first three looks only, and finds it once it execs with the marker', async function () {
      if (backend === 'portable' && !ps.real) return this.skip();
      const marker = procs.newMarker();
      const child = procs.track(spawn('env', ['-i', '/bin/sh', '-c', 'read m; exec /usr/bin/env "$m" sleep 600'], { stdio: ['pipe', 'ignore', 'ignore'] }));
      await waitFor('the empty environment', () => readProcStat(child.pid!)?.comm === 'sh');
      const reads = countReads(child.pid!);
      const looks = async () => {
        assert.deepEqual(findByEnvMarker(MARKER_NAME, marker), []);
        assert.deepEqual(await treeMembers(undefined, { name: MARKER_NAME, value: marker }), []);
      };
      // Three looks in a row empty through every read again (two calls each here): then known.
      await looks();
      await looks();
      const first = reads();
      assert.ok(first > (backend === 'proc' ? 4 : 0), `read again at the first looks (${first} reads)`);
      await looks();
      await looks();
      // On /proc each look reads every environment once: two looks of two calls, four reads.
      assert.equal(reads() - first, backend === 'proc' ? 4 : 0, 'known to have none: not read again');
      child.stdin!.end(`${MARKER_NAME}=${marker}\n`); // not on its command line, which `ps e` shows with the environment
      await waitFor('the exec', () => readProcStat(child.pid!)?.comm === 'sleep');
      assert.deepEqual(findByEnvMarker(MARKER_NAME, marker).map((p) => p.pid), [child.pid]);
    });
  });
}
