/**
 * `paddock allow` alone brings the automatic checks it made runnable (found by the second review of
 * bug 91). An attempt whose `.paddock.json` check was untrusted had nothing to run: no coordinator
 * was started for it, and a leader that had found it so looked again only on a pass, which only a
 * change to some record brought: after the allow, the check waited for something else to happen; and
 * a coordinator exiting handed over a skip list judged before the allow. Through the real bundle
 * (dist/cli.js) and a real leader.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust } from '../../../../src/core/repoConfig/trust';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { CLI_SCRIPT, CoordinatorSandbox, git, runCli, sleep, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

/** Two attempts ended in a repository whose check command is committed but not allowed; no coordinator left leading. */
async function untrustedAttempts(sb: CoordinatorSandbox): Promise<string[]> {
  writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ check: 'echo allowed-check' }));
  git(sb.repo, 'add', '.paddock.json');
  git(sb.repo, 'commit', '-qm', 'check');
  const started = await runCli(['start', '--attempts', '2', '--', 'true'], { cwd: sb.repo, env: sb.env });
  assert.equal(started.code, 0, started.stderr);
  const ids = started.stdout.trim().split('\n');
  for (const id of ids) await sb.waitForState(id, ['completed']);
  for (let i = 0; i < 300 && (await leaderLock(sb.home).owner()); i++) await sleep(100);
  assert.equal(await leaderLock(sb.home).owner(), undefined, 'the coordinator start began has exited');
  for (const id of ids) assert.equal((await sb.store.read(id)).check ?? null, null, 'untrusted: not checked');
  return ids;
}

async function waitForChecksPassed(sb: CoordinatorSandbox, ids: string[], ms = 30_000): Promise<void> {
  const states = async () => Promise.all(ids.map(async (id) => (await sb.store.read(id)).check?.state ?? null));
  for (const until = Date.now() + ms; Date.now() < until; await sleep(200)) {
    if ((await states()).every((s) => s === 'passed')) return;
  }
  assert.deepEqual(await states(), ids.map(() => 'passed'), 'checked after the allow');
}

describe('CLI: paddock allow brings the checks it made runnable', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('with no coordinator running, starts one that runs them', async () => {
    const ids = await untrustedAttempts(sb);
    const allowed = await runCli(['allow'], { cwd: sb.repo, env: sb.env });
    assert.equal(allowed.code, 0, allowed.stderr);
    await waitForChecksPassed(sb, ids);
    assert.match(allowed.stdout, /^Allowed .*\n {2}check: echo allowed-check\nThe checks of 2 attempts waiting for it: a background coordinator will run them/);
    const c = (await sb.store.read(ids[0])).check;
    assert.match(c!.summary, /allowed-check/);
  });

  it('with a leader that found them untrusted, that leader runs them (no record changed)', async () => {
    const ids = await untrustedAttempts(sb);
    const leader = sb.coordinator({}, { tickMs: 200 });
    await leader.ready;
    const jobs = async () => Promise.all(ids.map((id) => sb.store.read(id)));
    for (let i = 0; i < 150 && !(await jobs()).every((j) => leader.checkFoundNothingToRun(j)); i++) await sleep(100);
    assert.ok((await jobs()).every((j) => leader.checkFoundNothingToRun(j)), 'the leader found the check untrusted');
    const allowed = await runCli(['allow'], { cwd: sb.repo, env: sb.env });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /the running coordinator .* will run them/);
    await waitForChecksPassed(sb, ids);
  });

  // The skip list an exiting coordinator hands over was judged when its leader looked: trust given
  // since (here written as a window's allow would be, with no signal) was not seen, and no successor came.
  it('a coordinator exiting after the file was trusted hands the checks to a successor that runs them', async () => {
    const ids = await untrustedAttempts(sb);
    const child = spawn(process.execPath, [CLI_SCRIPT, 'coordinate', '--until-idle'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let trusted = false;
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stderr.on('data', (d) => {
      stderr += d;
      // Both found untrusted (the leader will not look again): trusted now, well before it exits (2 s idle).
      if (!trusted && ids.every((id) => stderr.includes(`automatic check of ${id}:`))) {
        trusted = true;
        void readRepoConfig(sb.repo).then((file) => new RepoConfigTrust(sb.home).allow(file!));
      }
    });
    assert.equal(await exited, 0, stderr);
    assert.ok(trusted, stderr);
    assert.match(stderr, /nothing is left to do: exiting/);
    assert.match(stderr, /work arrived as this coordinator gave up the lease: started another/);
    await waitForChecksPassed(sb, ids);
  });
});
