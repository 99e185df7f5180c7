/**
 * Bug 109: the store shared with a process in another pid namespace (a window in Flatpak or a dev
 * container, a terminal outside it). `paddock list` there judged a live worker by a pid that names
 * nothing in its namespace, wrote `orphaned` for everyone, and its agent ran on unseen: the worker's
 * later writes were refused, and a retry would have run a second agent in the same worktree.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { isSameAndRunning } from '../../../src/core/proc';
import { CLI_SCRIPT, CliRun, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** The real CLI run in a new pid namespace with its own /proc, as a sandbox sees the system. */
function cliInNamespace(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, CLI_SCRIPT, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

describe('CLI: a live agent seen from another pid namespace', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  before(function () {
    if (!namespacesWork()) this.skip(); // unshare --pid needs root (or user namespaces)
  });

  it('list, show and logs there leave it running; stop there stops it through its worker', async () => {
    const started = await runCli(['start', '--json', '--', 'sh', '-c', 'echo ns-$((6*7)); sleep 600'], { cwd: sb.repo, env: sb.env, input: '' });
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    const job = await sb.waitForState(id, ['running']);
    const worker = { pid: job.execution!.pid, startTime: job.execution!.startTime };

    for (const args of [['list', '--json'], ['show', id, '--json'], ['logs', id]]) {
      const run = await cliInNamespace(args, sb.repo, sb.env);
      assert.equal(run.code, 0, `${args[0]}: ${run.stderr}`);
    }
    const listed = JSON.parse((await cliInNamespace(['list', '--json'], sb.repo, sb.env)).stdout) as { id: string; lifecycle: { state: string } }[];
    assert.equal(listed.find((j) => j.id === id)!.lifecycle.state, 'running', 'never orphaned from another namespace');
    assert.equal((await sb.store.read(id)).lifecycle.state, 'running', 'nothing was written for the others');
    assert.ok(isSameAndRunning(worker), 'its worker runs on');

    const stopped = await cliInNamespace(['stop', id], sb.repo, sb.env);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout, `Agent ${id} is cancelled.\n`);
    const ended = await sb.store.read(id);
    assert.equal(ended.lifecycle.state, 'cancelled', 'the worker recorded its own end');
    const deadline = Date.now() + 10_000;
    while (isSameAndRunning(worker) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!isSameAndRunning(worker), 'the worker exited');
  });
});
