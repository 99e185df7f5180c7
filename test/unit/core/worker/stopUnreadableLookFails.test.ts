/**
 * Bug 196 (its first review): the stop of an agent whose record cannot be read looks up the worker
 * by the command line of the agent's session leader's parent. Once that look threw instead of
 * reading '' (bug 196), a `ps -o args= -p` that kept failing made the whole stop throw before any
 * agent process was signalled: the agent ran on. A real "worker" (`sh` with `--job ID` in its
 * arguments) runs a real marked `sleep` in its own session; a `ps` of the test's own fails that look.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findByEnvMarker } from '../../../../src/core/proc';
import { JobStore } from '../../../../src/core/store';
import { AGENT_MARKER_ENV } from '../../../../src/core/worker/agentMarker';
import { stopUnreadableJob } from '../../../../src/core/worker/stopUnreadableJob';
import { PortablePs } from '../proc/portablePs';

const ID = 'unread196';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('stop of an unreadable agent while its worker cannot be looked at, portable backend (bug 196)', function () {
  this.timeout(30_000);
  let dir: string;
  let ps: PortablePs;
  let worker: ChildProcess;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'paddock-unread-'));
    ps = new PortablePs(dir);
    ps.useBackend();
    // The worker: unmarked, `--job ID` among its arguments; its agent leads a session of its own and carries the marker.
    // (The marker passed as words: written out in sh's own command line, it would mark sh too.)
    worker = spawn('sh', ['-c', 'env "$1=$2" setsid sleep 60 & wait', 'sh', AGENT_MARKER_ENV, ID, '--job', ID], { stdio: 'ignore' });
  });

  afterEach(() => {
    ps.restore();
    for (const p of findByEnvMarker(AGENT_MARKER_ENV, ID)) process.kill(p.pid, 'SIGKILL');
    worker.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("a command-line look that keeps failing: the agent is still ended, and the worker is said unknown", async function () {
    if (!ps.real) return this.skip();
    let agent: number | undefined;
    for (let i = 0; i < 100 && agent === undefined; i++) {
      agent = findByEnvMarker(AGENT_MARKER_ENV, ID)[0]?.pid;
      if (agent === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(agent, 'the agent never started');
    ps.shim('case " $* " in *"args= -p "*) kill -9 $$;; esac');
    const result = await stopUnreadableJob(new JobStore({ home: dir }), ID, { force: false, graceMs: 0 });
    for (let i = 0; i < 40 && alive(agent); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(alive(agent), false, 'the agent still runs');
    assert.ok(result.ended.some((p) => p.pid === agent));
    assert.match(result.workerUnknown ?? '', /Could not list the processes \(ps -ww -o stat=,args= -p \d+\)/);
  });
});
