/**
 * The launch's look at its worker's start time (portable backend: a `ps -p PID` run) that keeps failing
 * was recorded as start time 0, which never matches: a reader judging the record between the launch and
 * the worker's claim (a first generation's gated worker waits there while git checks the worktree out)
 * failed the agent, *worker exited before it started the agent*, while its worker was alive; the worker's
 * claim was then refused and the agent never ran (bug 219). A `ps` of the test's own fails every per-pid
 * look but the boot identity's. Recording no launch instead left a worker that died before its claim to be
 * told, once its launcher gave up waiting, as *the process launching it stopped*: the launch is now recorded
 * with its start time unknown, judged by pid and boot.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LAUNCH_FAILED_DETAIL } from '../../../../src/core/store/ownership';
import { spawnWorker } from '../../../../src/core/worker/spawn';
import { PortablePs } from '../proc/portablePs';
import { nodePtyPath, Sandbox, workerScript } from './fixtures';

describe('launch: a failed look at the worker\'s start time (portable backend, bug 219)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let shims: string;
  let ps: PortablePs;
  beforeEach(() => {
    shims = mkdtempSync(path.join(tmpdir(), 'paddock-ps-'));
    ps = new PortablePs(shims);
    // Before the sandbox: its workers use the portable backend too, with the real `ps`.
    ps.useBackend();
    sb = new Sandbox();
  });
  afterEach(async () => {
    ps.restore();
    await sb.dispose();
    rmSync(shims, { recursive: true, force: true });
  });

  it('a reader before the claim leaves the launch alone; the agent runs once the gate opens', async function () {
    if (!ps.real) this.skip();
    const job = await sb.createJob(['sh', '-c', 'echo ran']);
    await sb.store.transition(job.id, 'starting');
    ps.shim(`case " $* " in *" -p 1 "*) ;; *" -p "*) echo 'ps: cannot look now' >&2; exit 2 ;; esac`);
    const worker = await spawnWorker({ home: sb.home, jobId: job.id, generation: 1, workerScript: workerScript(), nodePtyPath: nodePtyPath(), env: sb.env, store: sb.store, gated: true });
    sb.adoptWorker(worker.pid);
    ps.shim('');
    const read = await sb.store.read(job.id);
    assert.equal(read.lifecycle.state, 'starting', `a reader before the claim: ${read.lifecycle.detail}`);
    // The launch is recorded, its start time unknown: judged by pid and boot until the claim.
    assert.equal(read.launch?.startTime, null);
    worker.release(true);
    const done = await sb.waitForState(job.id, ['completed', 'failed']);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
  });

  it('a worker that dies before its claim is told at the next read as the worker that exited, not as a launcher that stopped', async function () {
    if (!ps.real) this.skip();
    const job = await sb.createJob(['sh', '-c', 'echo ran']);
    await sb.store.transition(job.id, 'starting');
    ps.shim(`case " $* " in *" -p 1 "*) ;; *" -p "*) echo 'ps: cannot look now' >&2; exit 2 ;; esac`);
    const worker = await spawnWorker({ home: sb.home, jobId: job.id, generation: 1, workerScript: workerScript(), nodePtyPath: nodePtyPath(), env: sb.env, store: sb.store, gated: true });
    ps.shim('');
    process.kill(worker.pid, 'SIGKILL');
    for (let i = 0; i < 100 && alive(worker.pid); i++) await new Promise((r) => setTimeout(r, 50));
    const read = await sb.store.read(job.id);
    assert.equal(read.lifecycle.state, 'failed');
    assert.equal(read.lifecycle.detail, LAUNCH_FAILED_DETAIL);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
