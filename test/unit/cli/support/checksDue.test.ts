/**
 * An attempt's automatic check still to run is work left for a coordinator (found by reading: it was
 * not, so the CLI started none for it and `coordinate --until-idle` could exit before running it),
 * but only where a check command is in force: else nothing would ever run it, and counting it kept a
 * coordinator up forever. Through the real bundle (dist/cli.js): the coordinator started runs the
 * checks and exits by itself.
 */
import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliContext } from '../../../../src/cli/command';
import { ensureCoordinator } from '../../../../src/cli/support/backgroundCoordinator';
import { identityOf } from '../../../../src/core/proc/identity';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import type { JobRecord } from '../../../../src/core/store/schema';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, test: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('CLI: an attempt check still to run (checksDue)', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  let background: number | undefined;
  afterEach(() => {
    if (background !== undefined && alive(background)) process.kill(background, 'SIGKILL');
    background = undefined;
  });

  it('starts a coordinator for an out-of-date check or a missing one when a command is in force, which runs them and exits; none when no command is set', async () => {
    const ctx = { env: { ...sb.env, PADDOCK_CLI_SCRIPT: CLI_SCRIPT }, cwd: sb.repo, io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin } } as unknown as CliContext;
    const started = await runCli(['start', '--attempts', '2', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const [a, b] = started.stdout.trim().split('\n');
    await sb.waitForState(a, ['completed']);
    await sb.waitForState(b, ['completed']);
    await until('no coordinator leading', async () => (await leaderLock(sb.home).owner()) === undefined);
    assert.deepEqual(await ensureCoordinator(ctx, sb.store), { kind: 'not-needed' }, 'no check command anywhere: nothing to run');

    const ended = (await sb.store.read(a)).lifecycle.endedAt!;
    const before = new Date(Date.parse(ended) - 60_000).toISOString();
    await sb.store.update(a, (j: JobRecord) => ({
      ...j,
      settings: { ...j.settings, checkCommand: 'echo checked-again' },
      check: { state: 'passed', exitCode: 0, durationMs: 1, at: before, summary: 'an earlier run', runner: null },
    }));
    await sb.store.update(b, (j: JobRecord) => ({ ...j, settings: { ...j.settings, checkCommand: 'echo checked-first' }, check: null }));

    const presence = await ensureCoordinator(ctx, sb.store);
    assert.equal(presence.kind, 'started', 'a check is left to run');
    background = presence.kind === 'started' ? presence.pid : undefined;
    await until('both checks run', async () => {
      const [ja, jb] = [await sb.store.read(a), await sb.store.read(b)];
      return ja.check?.state === 'passed' && ja.check.summary.includes('checked-again') && jb.check?.state === 'passed';
    });
    await until('the coordinator exits by itself', () => !alive(background!));
  });

  it('coordinate --until-idle does not wait for a check nothing can run: an untrusted check command, a worktree gone', async () => {
    const started = await runCli(['start', '--attempts', '2', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const [a, b] = started.stdout.trim().split('\n');
    await sb.waitForState(a, ['completed']);
    await sb.waitForState(b, ['completed']);
    await until('no coordinator leading', async () => (await leaderLock(sb.home).owner()) === undefined);
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ check: 'echo never' }));
    const gone = (await sb.store.read(b)).worktree!;
    await sb.store.update(b, (j: JobRecord) => ({ ...j, settings: { ...j.settings, checkCommand: 'echo never' } }));
    rmSync(gone, { recursive: true, force: true });
    const run = await runCli(['coordinate', '--until-idle'], { cwd: sb.repo, env: sb.env, timeoutMs: 30_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /nothing is left to do: exiting/);
    assert.equal((await sb.store.read(a)).check ?? null, null, 'nothing ran');
  });

  it('starts one for a check recorded running by a process that is gone, which runs it again', async () => {
    const ctx = { env: { ...sb.env, PADDOCK_CLI_SCRIPT: CLI_SCRIPT }, cwd: sb.repo, io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin } } as unknown as CliContext;
    const started = await runCli(['start', '--attempts', '2', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const [a, b] = started.stdout.trim().split('\n');
    await sb.waitForState(a, ['completed']);
    await sb.waitForState(b, ['completed']);
    await until('no coordinator leading', async () => (await leaderLock(sb.home).owner()) === undefined);
    const gone = { ...identityOf(process.pid)!, startTime: 1 };
    await sb.store.update(a, (j: JobRecord) => ({
      ...j,
      settings: { ...j.settings, checkCommand: 'echo run-again' },
      check: { state: 'running', exitCode: null, durationMs: null, at: new Date().toISOString(), summary: '', runner: gone },
    }));
    const presence = await ensureCoordinator(ctx, sb.store);
    assert.equal(presence.kind, 'started', 'the check is left to run');
    background = presence.kind === 'started' ? presence.pid : undefined;
    await until('the check run again', async () => {
      const c = (await sb.store.read(a)).check;
      return c?.state === 'passed' && c.summary.includes('run-again');
    });
    await until('the coordinator exits by itself', () => !alive(background!));
  });
});
