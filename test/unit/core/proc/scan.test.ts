import * as assert from 'node:assert/strict';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { holdersOf } from '../../../../src/core/proc/holders';
import { readProcStat } from '../../../../src/core/proc/identity';
import { commandLineOf, findByEnvMarker, findByEnvMarkerAsync, listProcesses, sessionMembers } from '../../../../src/core/proc/scan';
import { MARKER_NAME, Spawned, waitFor } from './procTestUtil';

describe('proc/scan', () => {
  let procs: Spawned;
  let dir: string;
  beforeEach(() => {
    procs = new Spawned();
    dir = mkdtempSync(path.join(tmpdir(), 'paddock-proc-'));
  });
  afterEach(() => {
    procs.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists processes, session members, marked processes and command lines', async () => {
    const marker = procs.newMarker();
    const sid = procs.session('exec sleep 1000', marker);
    await waitFor('exec', () => readProcStat(sid)?.comm === 'sleep');

    assert.ok(listProcesses().some((p) => p.pid === process.pid));
    assert.deepEqual(sessionMembers(sid).map((p) => p.pid), [sid]);
    assert.deepEqual(findByEnvMarker(MARKER_NAME, marker).map((p) => p.pid), [sid]);
    assert.deepEqual(findByEnvMarker(MARKER_NAME, `${marker}-other`), []);
    assert.equal(commandLineOf(sid), 'sleep 1000');
    assert.equal(commandLineOf(2 ** 22 + 1), '', 'a pid beyond pid_max has no command');
  });

  // Bug 227: the portable backend gave ps's rendering of an unreaped process, `[sleep] <defunct>`.
  it("names an exited process not yet reaped by its name, as /proc does, not ps's <defunct>", async () => {
    // The child's parent execs into a sleep that never reaps it: a zombie for as long as that runs.
    const parent = procs.session('sleep 0.1 & exec sleep 1004', procs.newMarker());
    let zombie: number | undefined;
    await waitFor('the zombie', () => (zombie = listProcesses().find((p) => p.ppid === parent && p.state === 'Z')?.pid) !== undefined);
    assert.equal(commandLineOf(zombie!), 'sleep');
    assert.equal(commandLineOf(parent), 'sleep 1004', 'a live one keeps its arguments');
  });

  it('finds holders by cwd and by open file descriptor, not bystanders or itself', async () => {
    const sub = path.join(dir, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, 'held.txt'), 'x');
    const marker = procs.newMarker();
    const byCwd = procs.session(`cd '${sub}' && exec sleep 1001`, marker);
    const byFd = procs.session(`exec 3<'${path.join(sub, 'held.txt')}'; cd /; exec sleep 1002`, marker);
    const bystander = procs.session('cd /; exec sleep 1003', marker);
    await waitFor('all three', () => [byCwd, byFd, bystander].every((p) => readProcStat(p)?.comm === 'sleep'));
    const ownFd = openSync(path.join(sub, 'held.txt'), 'r'); // this process holds it too, but is excluded
    try {
      const holders = await holdersOf(dir);
      const pids = holders.map((h) => h.pid).sort((a, b) => a - b);
      assert.deepEqual(pids, [byCwd, byFd].sort((a, b) => a - b));
      assert.equal(holders.find((h) => h.pid === byCwd)?.command, 'sleep 1001');
      assert.equal(holders.find((h) => h.pid === byFd)?.command, 'sleep 1002');
      assert.deepEqual((await holdersOf(path.join(dir, 'a', 'b') + '/')).length, 2, 'a trailing slash changes nothing');
      assert.deepEqual(await holdersOf(`${dir}-sibling`), [], 'a name prefix is not "inside"');
    } finally {
      closeSync(ownFd);
    }
  });

  it('finds a holder whose cwd was deleted under it', async () => {
    const sub = path.join(dir, 'gone');
    mkdirSync(sub);
    const pid = procs.session(`cd '${sub}' && exec sleep 1004`, procs.newMarker());
    await waitFor('sleep', () => readProcStat(pid)?.comm === 'sleep');
    rmSync(sub, { recursive: true });
    assert.deepEqual((await holdersOf(sub)).map((h) => h.pid), [pid]);
  });

  /** Runs `scan` while counting turns of the event loop: a scan that blocks it sees none. */
  async function turnsDuring<T>(scan: () => Promise<T>): Promise<{ result: T; turns: number }> {
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    try {
      const result = await scan();
      return { result, turns };
    } finally {
      spinning = false;
    }
  }

  it('finds a sleep holding a folder, and the marked processes, without blocking the event loop', async () => {
    const sub = path.join(dir, 'held');
    mkdirSync(sub);
    const marker = procs.newMarker();
    const pid = procs.session(`cd '${sub}' && exec sleep 1006`, marker);
    await waitFor('sleep', () => readProcStat(pid)?.comm === 'sleep');

    const holders = await turnsDuring(() => holdersOf(dir));
    assert.deepEqual(holders.result, [{ pid, command: 'sleep 1006' }]);
    assert.ok(holders.turns > 0, 'the event loop turned while the holders were scanned');

    const marked = await turnsDuring(() => findByEnvMarkerAsync(MARKER_NAME, marker));
    assert.deepEqual(marked.result.map((p) => p.pid), [pid]);
    assert.deepEqual(marked.result, findByEnvMarker(MARKER_NAME, marker), 'the same answer as the synchronous scan');
    assert.ok(marked.turns > 0, 'the event loop turned while the marked processes were scanned');
    assert.deepEqual(await findByEnvMarkerAsync(MARKER_NAME, `${marker}-other`), []);
  });
});
