import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcStat } from '../../../../src/core/proc/identity';
import { listProcesses, sessionMembers } from '../../../../src/core/proc/scan';
import { signalIfSame } from '../../../../src/core/proc/signal';
import { terminateProcessTree } from '../../../../src/core/proc/terminate';
import { PortablePs, watchEventLoop } from './portablePs';
import { MARKER_NAME, Spawned, running, waitFor } from './procTestUtil';

describe('proc/terminateProcessTree', () => {
  let procs: Spawned;
  beforeEach(() => {
    procs = new Spawned();
  });
  afterEach(() => procs.killAll());

  const sleepers = (sid: number) => sessionMembers(sid).filter((p) => p.comm === 'sleep');

  it('stops a job-control session whose background jobs sit in their own process groups', async () => {
    const marker = procs.newMarker();
    const sid = procs.session('set -m; sleep 1000 & sleep 1000 & wait', marker);
    const jobs = await waitFor('two background jobs', () => (sleepers(sid).length === 2 ? sleepers(sid) : undefined));
    for (const job of jobs) assert.notEqual(job.pgid, sid, 'precondition: each job has its own process group');
    const escalated: number[][] = [];

    const { survivors } = await terminateProcessTree({ sid, graceMs: 5000, onEscalate: (p) => escalated.push(p) });

    assert.deepEqual(survivors, []);
    assert.deepEqual(escalated, [], 'SIGTERM was enough');
    assert.equal(running(sid), false);
    for (const job of jobs) assert.equal(running(job.pid), false);
  });

  it('escalates to SIGKILL when SIGTERM is ignored, and reports the escalated pids', async () => {
    const marker = procs.newMarker();
    const sid = procs.session("trap '' TERM; while :; do sleep 0.05; done", marker);
    await waitFor('the loop to run', () => sleepers(sid).length > 0);
    const escalated: number[][] = [];

    const { survivors } = await terminateProcessTree({ sid, graceMs: 300, onEscalate: (p) => escalated.push(p) });

    assert.deepEqual(survivors, []);
    assert.equal(escalated.length, 1);
    assert.ok(escalated[0].includes(sid), `the TERM-ignoring shell ${sid} is among ${escalated[0].join(',')}`);
    assert.equal(running(sid), false);
  });

  it('finds a setsid escapee only through the environment marker', async () => {
    const marker = procs.newMarker();
    const sid = procs.session('setsid sleep 1000 & wait', marker);
    const escapee = await waitFor('the escapee in its own session', () => {
      return listProcesses().find((p) => p.ppid === sid && p.comm === 'sleep' && p.sid === p.pid);
    });
    assert.notEqual(escapee.sid, sid);

    const bySession = await terminateProcessTree({ sid, graceMs: 2000 });
    assert.deepEqual(bySession.survivors, []);
    assert.equal(running(escapee.pid), true, 'the session scan alone does not reach the escapee');

    const byMarker = await terminateProcessTree({ sid, graceMs: 2000, marker: { name: MARKER_NAME, value: marker } });
    assert.deepEqual(byMarker.survivors, []);
    assert.equal(running(escapee.pid), false);
  });

  it('stops a nohup child that outlived its session leader', async () => {
    const marker = procs.newMarker();
    const sid = procs.session('nohup sleep 1000 >/dev/null 2>&1 & wait', marker);
    const [child] = await waitFor('the nohup child', () => (sleepers(sid).length === 1 ? sleepers(sid) : undefined));
    process.kill(sid, 'SIGKILL'); // the leader dies as when the PTY's worker is killed
    await waitFor('the leader to go', () => !running(sid));
    assert.equal(running(child.pid), true, 'precondition: the nohup child survives its leader');

    const { survivors } = await terminateProcessTree({ sid, graceMs: 2000 });

    assert.deepEqual(survivors, []);
    assert.equal(running(child.pid), false);
  });

  it('counts a zombie as gone (no escalation, no survivor)', async () => {
    // python never reaps its child, so `setsid true` stays a zombie in its own session.
    const py = procs.track(
      spawn('python3', ['-c', "import subprocess,time\np=subprocess.Popen(['setsid','true'])\nprint(p.pid,flush=True)\ntime.sleep(1000)"], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let out = '';
    py.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const zombie = await waitFor('the zombie', () => {
      const pid = Number(out.trim());
      return pid > 0 && readProcStat(pid)?.state === 'Z' ? pid : undefined;
    });
    assert.equal(readProcStat(zombie)?.sid, zombie, 'precondition: the zombie leads its own session');
    const escalated: number[][] = [];

    const { survivors } = await terminateProcessTree({ sid: zombie, graceMs: 5000, onEscalate: (p) => escalated.push(p) });

    assert.deepEqual(survivors, []);
    assert.deepEqual(escalated, []);
  });

  it('never signals excluded pids and does not report them', async () => {
    const marker = procs.newMarker();
    const sid = procs.session('sleep 1000 & wait', marker);
    const [keep] = await waitFor('the child', () => (sleepers(sid).length === 1 ? sleepers(sid) : undefined));

    const { survivors } = await terminateProcessTree({ sid, graceMs: 2000, exclude: [keep.pid] });

    assert.deepEqual(survivors, []);
    assert.equal(running(keep.pid), true);
    assert.equal(running(sid), false);
  });

  it('on the portable backend, stops a tree without stopping the event loop (each ps slowed to 300 ms)', async function () {
    // A window's extension host stops agents too (an orphaned one, a check past its time): each look
    // at the tree was a blocking `ps` run, several per 25 ms poll, for the whole grace. With a `ps`
    // that takes 300 ms ahead of the real one in PATH, any blocking run stops the loop that long.
    this.timeout(30_000);
    const shims = mkdtempSync(join(tmpdir(), 'paddock-ps-'));
    const ps = new PortablePs(shims);
    if (!ps.real) return this.skip();
    const marker = procs.newMarker();
    const sid = procs.session("trap '' TERM; setsid sleep 1000 & sleep 1000 & wait", marker);
    await waitFor('the two sleepers', () => listProcesses().filter((p) => p.ppid === sid && p.comm === 'sleep').length === 2);
    let escalated: number[] = [];
    let watched;
    try {
      ps.useBackend();
      ps.shim('sleep 0.3');
      watched = await watchEventLoop(() => terminateProcessTree({ sid, graceMs: 300, marker: { name: MARKER_NAME, value: marker }, onEscalate: (p) => (escalated = p) }));
    } finally {
      ps.restore();
      rmSync(shims, { recursive: true, force: true });
    }
    const { result, longestGapMs } = watched;
    assert.deepEqual(result.survivors, []);
    assert.ok(escalated.includes(sid), `SIGTERM is ignored: escalated ${escalated.join(',')}`);
    assert.equal(escalated.length, 3, 'the leader, its child and the setsid escapee (through the marker)');
    for (const pid of escalated) assert.equal(running(pid), false, `${pid} ended`);
    // Under the shim's 300 ms: no blocking `ps` run (a loaded machine may still pause the loop briefly).
    assert.ok(longestGapMs < 300, `the event loop stopped for ${longestGapMs} ms`);
  });

  it('refuses its own session and the init session', async () => {
    // Run the own-session case in a child that leads a session of its own: the test runner's
    // session may be 0 (its leader outside a container's pid namespace), which is refused earlier.
    const probe = [
      `const { terminateProcessTree } = require(${JSON.stringify(require.resolve('../../../../src/core/proc/terminate'))});`,
      `const { readProcStat } = require(${JSON.stringify(require.resolve('../../../../src/core/proc/identity'))});`,
      'const own = readProcStat(process.pid).sid;',
      'if (own !== process.pid) { console.log("not a session leader"); process.exit(0); }',
      'terminateProcessTree({ sid: own, graceMs: 10 }).then(() => console.log("resolved"), (e) => console.log(e.message));',
    ].join('\n');
    const child = spawn(process.execPath, ['-e', probe], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    assert.match(said, /own session/);
    await assert.rejects(terminateProcessTree({ sid: 1, graceMs: 10 }), /cannot be stopped|not a process session/);
    await assert.rejects(terminateProcessTree({ sid: 0, graceMs: 10 }), /not a process session/);
  });
});

describe('proc/signalIfSame (pid reuse guard)', () => {
  let procs: Spawned;
  beforeEach(() => {
    procs = new Spawned();
  });
  afterEach(() => procs.killAll());

  it('does not signal a pid whose start time differs from the recorded one', async () => {
    const sid = procs.session('exec sleep 1000', procs.newMarker());
    const stat = await waitFor('sleep', () => (readProcStat(sid)?.comm === 'sleep' ? readProcStat(sid) : undefined));

    assert.equal(signalIfSame({ pid: sid, startTime: stat.startTime - 1 }, 'SIGKILL'), false);
    assert.equal(running(sid), true, 'a mismatched identity is never signalled');

    assert.equal(signalIfSame({ pid: sid, startTime: stat.startTime }, 'SIGKILL'), true);
    await waitFor('the process to die', () => !running(sid));
  });
});
