/**
 * The stall watch (proc/stallWatch.ts) judges a session from one look at the process table each time:
 * its members, their states and their CPU time. It took two looks (the members, then the usage
 * table with this user's environments), three `ps` runs a look on the portable backend. Real
 * sessions, the real `ps` behind a shim that counts its runs.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePsWork } from '../../../../src/core/proc/psParse';
import { watchForStall } from '../../../../src/core/proc/stallWatch';
import { PortablePs } from './portablePs';
import { Spawned } from './procTestUtil';
import { useProcessBackend } from './processBackend';

/** Resolves with how long the watch took to call a stall, or rejects after `withinMs`. */
function stallOf(sid: number, quietMs: number, withinMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unwatch();
      reject(new Error(`no stall within ${withinMs} ms`));
    }, withinMs);
    const unwatch = watchForStall({ sid, quietMs, onStall: () => (clearTimeout(timer), resolve(Date.now() - started)) });
  });
}

describe('proc/stallWatch', () => {
  let procs: Spawned;
  beforeEach(() => {
    procs = new Spawned();
  });
  afterEach(() => procs.killAll());

  for (const backend of ['proc', 'portable'] as const) {
    describe(`${backend} backend`, () => {
      useProcessBackend(backend);

      it('calls a session whose members all sleep stalled; one that works is not', async function () {
        this.timeout(20_000);
        const asleep = procs.session('sleep 1000', procs.newMarker());
        assert.ok((await stallOf(asleep, 800, 10_000)) >= 800);
        const busy = procs.session('while :; do :; done', procs.newMarker());
        await assert.rejects(stallOf(busy, 800, 2500), /no stall/);
      });
    });
  }

  it('on the portable backend, one ps run a look', async function () {
    this.timeout(20_000);
    const shims = mkdtempSync(join(tmpdir(), 'paddock-ps-'));
    const ps = new PortablePs(shims);
    if (!ps.real) return this.skip();
    const log = join(shims, 'runs.log');
    writeFileSync(log, '');
    const sid = procs.session('sleep 1000', procs.newMarker());
    let elapsedMs: number;
    try {
      ps.useBackend();
      ps.shim(`echo "$*" >> '${log}'`);
      // A look every 200 ms (quietMs / 8, at least 200): the first after 200 ms, the stall at the look past 800 ms.
      elapsedMs = await stallOf(sid, 800, 10_000);
    } finally {
      ps.restore();
    }
    const runs = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    rmSync(shims, { recursive: true, force: true });
    assert.ok(runs.length >= 1, 'the watch looked');
    // No more looks than 200 ms periods in the time it took: before, three runs a look (12 to 15 here).
    assert.ok(runs.length <= Math.floor(elapsedMs / 200), `${runs.length} ps runs in ${elapsedMs} ms:\n${runs.join('\n')}`);
  });

  it("reads ps's state and cumulative CPU time columns in procps and macOS forms", () => {
    const linux = parsePsWork(['    1     0 S<Ll 957:21', '  452   451 R+     0:12', '  460   451 Z      0:00', 'garbage'].join('\n'));
    assert.deepEqual(linux, [
      { pid: 1, sid: 0, state: 'S', cpuSeconds: 957 * 60 + 21 },
      { pid: 452, sid: 451, state: 'R', cpuSeconds: 12 },
      { pid: 460, sid: 451, state: 'Z', cpuSeconds: 0 },
    ]);
    const mac = parsePsWork('  900 0x5c2e1f0 Ss   0:03.45');
    assert.equal(mac.length, 1);
    assert.deepEqual([mac[0].state, mac[0].cpuSeconds], ['S', 3.45]);
  });
});
