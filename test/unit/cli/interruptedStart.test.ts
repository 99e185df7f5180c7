/**
 * Ctrl-C during `paddock start` / `paddock retry`, through the real bundle. Found by hand: an
 * interrupt after the record was written killed the CLI wherever it was, leaving the agent
 * `queued` (nobody to launch it without a window), `starting` for good (holding a slot, refusing
 * even `stop --force`), or running while the person, who had asked to abort, never got its id.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarker } from '../../../src/core/proc';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: start and retry interrupted', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** Runs the CLI and sends SIGINT as soon as `when` holds (watched in the store, not timed). */
  async function interruptedRun(args: string[], when: () => boolean): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const deadline = Date.now() + 30_000;
    while (!when()) {
      assert.ok(Date.now() < deadline, 'the command never reached the point to interrupt');
      await sleep(2);
    }
    child.kill('SIGINT');
    return { code: await closed, stderr };
  }

  const jobIds = () => (existsSync(join(sb.home, 'jobs')) ? readdirSync(join(sb.home, 'jobs')) : []);
  const recorded = (id: string) => existsSync(join(sb.home, 'jobs', id, 'job.json'));

  it('a start interrupted once its record exists finishes, then stops the agent it made, and exits 130', async () => {
    const run = await interruptedRun(['start', '--', 'sleep', '100'], () => jobIds().some(recorded));
    const [id] = jobIds();
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, new RegExp(`Agent ${id} was stopped because the command was interrupted`));
    const job = await sb.store.read(id);
    assert.ok(['cancelled', 'failed'].includes(job.lifecycle.state), `left ${job.lifecycle.state}`);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id).map((p) => p.comm), [], 'nothing of it runs');
  });

  it('a retry interrupted once its new generation is recorded stops it too', async () => {
    const id = (await runCli(['start', '--', 'sleep', '100'], { cwd: sb.repo, env: sb.env })).stdout.trim();
    assert.equal((await runCli(['stop', id], { cwd: sb.repo, env: sb.env })).code, 0);
    const generation = () => {
      try {
        return (JSON.parse(readFileSync(join(sb.home, 'jobs', id, 'job.json'), 'utf8')) as { lifecycle: { generation: number } }).lifecycle.generation;
      } catch {
        return 0; // caught between two writes: look again
      }
    };
    const run = await interruptedRun(['retry', id], () => generation() === 2);
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /was stopped because the command was interrupted/);
    const job = await sb.store.read(id);
    assert.equal(job.lifecycle.generation, 2);
    assert.ok(['cancelled', 'failed'].includes(job.lifecycle.state), `left ${job.lifecycle.state}`);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id).map((p) => p.comm), [], 'nothing of it runs');
  });

  // Found by hand: such a start (its CLI SIGKILLed while git made the worktree) refused `stop` and
  // `stop --force` ("the agent is still starting") and held its slot until a window or a
  // background coordinator happened to lead.
  it('stop settles a start whose launcher died before its worker started, undoing the half-made worktree', async () => {
    const { id, worktree } = await sb.createAbandonedStart('launcher killed');

    const stopped = await runCli(['stop', id], { cwd: sb.repo, env: sb.env });
    assert.equal(stopped.code, 0, stopped.stderr);
    const job = await sb.store.read(id);
    assert.equal(job.lifecycle.state, 'failed');
    assert.match(job.lifecycle.detail ?? '', /launching it stopped before its worker started/);
    assert.equal(existsSync(worktree), false, 'the worktree the launch made is undone (nothing ever ran in it)');
    assert.equal((await runCli(['stop', id, '--force'], { cwd: sb.repo, env: sb.env })).code, 0);
  });
});
