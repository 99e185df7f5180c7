/**
 * The CLI of several attempts through the real bundle (dist/cli.js): `start --attempts`,
 * `check`, `compare` — output shapes, exit statuses, one-sentence errors.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoConfig } from '../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust } from '../../../src/core/repoConfig/trust';
import { findByEnvMarker } from '../../../src/core/proc';
import type { JobRecord } from '../../../src/core/store';
import { assertOneSentence, bytesRead, CLI_SCRIPT, CoordinatorSandbox, git, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: start --attempts, check, compare', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });


  it('refuses a bad number of attempts or more profiles than attempts with exit 2 and one sentence, creating nothing', async () => {
    for (const args of [
      ['--attempts', '0'],
      ['--attempts', '17'],
      ['--attempts', 'three'],
      ['--attempts', '2', '--profile', 'a', '--profile', 'b', '--profile', 'c'],
      ['--profile', 'a', '--profile', 'b'],
    ]) {
      const run = await cli(['start', ...args, '--', 'true']);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assertOneSentence(run.stderr);
    }
    assert.deepEqual(await sb.store.list(), []);
  });

  it('starts N attempts as one group: one id per line, or every record as a JSON array; compare lists them', async () => {
    const plain = await cli(['start', '--attempts', '3', '--title', 'Fix it', '--', 'sh', '-c', 'echo "$PADDOCK_JOB_ID" > mine.txt']);
    assert.equal(plain.code, 0, plain.stderr);
    const ids = plain.stdout.trim().split('\n');
    assert.equal(ids.length, 3);
    const jobs = await Promise.all(ids.map((id) => sb.waitEnded(id)));
    const group = jobs[0].group!;
    assert.deepEqual(jobs.map((j) => [j.group!.id, j.group!.index, j.group!.size]), [[group.id, 1, 3], [group.id, 2, 3], [group.id, 3, 3]]);

    const json = await cli(['start', '--attempts', '2', '--json', '--', 'true']);
    assert.equal(json.code, 0, json.stderr);
    const records = JSON.parse(json.stdout) as { id: string; group: { id: string; index: number; size: number } }[];
    assert.equal(records.length, 2);
    assert.deepEqual(records.map((r) => [r.group.index, r.group.size]), [[1, 2], [2, 2]]);
    assert.equal(records[0].group.id, records[1].group.id);

    const compared = await cli(['compare', group.id, '--json']);
    assert.equal(compared.code, 0, compared.stderr);
    const cmp = JSON.parse(compared.stdout) as { attempts: { id: string; files: { path: string; added: number; removed: number }[] }[]; commonCount: number };
    assert.deepEqual(cmp.attempts.map((a) => a.id), ids);
    for (const a of cmp.attempts) assert.deepEqual(a.files, [{ path: 'mine.txt', added: 1, removed: 0 }]);
    assert.equal(cmp.commonCount, 0, 'each attempt wrote its own id: nothing in common');
    const text = await cli(['compare', group.id]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^Fix it · group \w+ · 3 of 3 attempts$/m);
    assert.match(text.stdout, /\+1 −0 {2}mine\.txt/);

    const unknown = await cli(['compare', 'nosuchgroup']);
    assert.equal(unknown.code, 2);
    assertOneSentence(unknown.stderr);
  });

  it('check: says how to set a command (exit 2), runs a trusted one in the foreground (exit 0 passed, 1 failed)', async () => {
    const started = await cli(['start', '--', 'sh', '-c', 'echo broken > state.txt']);
    const id = started.stdout.trim();
    await sb.waitEnded(id);
    const none = await cli(['check', id]);
    assert.equal(none.code, 2);
    assertOneSentence(none.stderr);
    assert.match(none.stderr, /paddock\.checkCommand.*\.paddock\.json/);

    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ check: 'cat state.txt; grep -q fixed state.txt' }));
    git(sb.repo, 'add', '.paddock.json');
    git(sb.repo, 'commit', '-qm', 'check');
    const untrusted = await cli(['check', id]);
    assert.equal(untrusted.code, 2);
    assert.match(untrusted.stderr, /paddock allow/);

    await new RepoConfigTrust(sb.home).allow((await readRepoConfig(sb.repo))!);
    const failed = await cli(['check', id]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stdout, /^broken$/m);
    assert.match(failed.stderr, /the check failed \(exit 1\)/);
    assert.equal((await sb.store.read(id)).check?.state, 'failed');

    writeFileSync(join((await sb.store.read(id)).worktree!, 'state.txt'), 'fixed\n');
    const passed = await cli(['check', id]);
    assert.equal(passed.code, 0, passed.stderr);
    assert.match(passed.stdout, /check passed in \d+ s/);
    const check = (await sb.store.read(id)).check!;
    assert.equal(check.state, 'passed');
    assert.equal(check.exitCode, 0);
  });

  // Found by reading: a check waiting for a slot listed every record of the store each second.
  it('check: waiting for a slot, it does not re-read the store each second, and runs as soon as the slot frees', async function () {
    if (!existsSync(`/proc/${process.pid}/io`)) return this.skip();
    const listingBytes = await sb.seedEndedRecords(300);
    await sb.trustCheck('echo checked');
    const id = (await cli(['start', '--', 'true'])).stdout.trim();
    await sb.waitEnded(id);
    sb.store.policy.write({ maxConcurrent: 1 });
    const holder = (await cli(['start', '--', 'sh', '-c', 'read x'])).stdout.trim();
    await sb.waitForState(holder, ['running']);

    const checking = spawn(process.execPath, [CLI_SCRIPT, 'check', id], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    checking.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => checking.once('close', resolve));
    await sb.waitFor(id, (j) => j.check?.state === 'queued');
    await sleep(500);
    const before = bytesRead(checking.pid!);
    await sleep(4000);
    const read = bytesRead(checking.pid!) - before;
    // It looks again every 5 s though nothing changed: once at most here.
    assert.ok(read < 1.5 * listingBytes, `it read ${read} bytes in 4 s; one listing of the store is ${listingBytes}`);

    const freed = Date.now();
    assert.equal((await cli(['stop', holder])).code, 0);
    assert.equal(await exited, 0);
    assert.ok(Date.now() - freed < 4000, `the check ran ${Date.now() - freed} ms after the slot freed`);
    assert.match(stdout, /check passed/);
    assert.equal((await sb.store.read(id)).check?.state, 'passed');
  });

  // Found by hand: the check runs in a session of its own (so its whole tree can be ended), which a
  // terminal's Ctrl-C does not reach: an interrupted `paddock check` left the check running.
  it('check: an interrupt ends the check with everything it started, records it failed and exits 130; also while it waits for a slot', async () => {
    await sb.trustCheck('echo started; sleep 37 & sleep 38; echo never');
    const id = (await cli(['start', '--', 'true'])).stdout.trim();
    await sb.waitEnded(id);
    const interrupted = async (when: (j: JobRecord) => boolean) => {
      const checking = spawn(process.execPath, [CLI_SCRIPT, 'check', id], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      checking.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => checking.once('close', resolve));
      await sb.waitFor(id, when);
      await sleep(300);
      checking.kill('SIGINT');
      return { code: await exited, stderr };
    };

    const running = await interrupted((j) => j.check?.state === 'running');
    assert.equal(running.code, 130, running.stderr);
    assert.equal(running.stderr, 'Interrupted: ending the check and everything it started (interrupt again to quit at once).\n');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id).map((p) => `${p.pid} ${p.comm}`), [], 'nothing the check started runs');
    const ended = (await sb.store.read(id)).check!;
    assert.equal(ended.state, 'failed');
    assert.match(ended.summary, /^started\n\(check interrupted and ended, with everything it started\)$/);

    sb.store.policy.write({ maxConcurrent: 1 });
    const holder = (await cli(['start', '--', 'sh', '-c', 'read x'])).stdout.trim();
    await sb.waitForState(holder, ['running']);
    const waiting = await interrupted((j) => j.check?.state === 'queued');
    assert.equal(waiting.code, 130, waiting.stderr);
    assert.match(waiting.stderr, new RegExp(`\\npaddock check: The check of agent ${id} was interrupted while it waited for a capacity slot; it did not run\\.\\n$`));
    const notRun = (await sb.store.read(id)).check!;
    assert.equal(notRun.state, 'failed');
    assert.equal(notRun.runner, null);
    await cli(['stop', holder]);
  });

  // Found by hand: a `paddock check` SIGKILLed mid-check left "check running" in the record for
  // good: every later check was refused ("already running") and the check's capacity slot was
  // never given back, so with one slot a queued agent never started. And what the check had
  // started ran on until someone pressed Stop: nothing else ever ended it.
  it('check: a check whose CLI was SIGKILLed is ended, with what it started, and recorded failed at the next read; its slot frees and it can run again', async () => {
    // The check and an escapee that left its session both ignore TERM: only the grace's KILL ends them.
    await sb.trustCheck(`touch check-began; test -f quick || { trap '' TERM; setsid sh -c 'sleep 60' & sleep 30; }`);
    writeFileSync(join(sb.home, 'policy.json'), JSON.stringify({ maxConcurrent: 1 }));
    const id = (await cli(['start', '--', 'true'])).stdout.trim();
    const worktree = (await sb.waitEnded(id)).worktree!;

    const checking = spawn(process.execPath, [CLI_SCRIPT, 'check', id], { cwd: sb.repo, env: sb.env, stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    const checkProcesses = () => findByEnvMarker('PADDOCK_JOB_ID', id).map((p) => `${p.pid} ${p.comm}`);
    while (!existsSync(join(worktree, 'check-began')) || checkProcesses().filter((p) => p.endsWith(' sleep')).length < 2) {
      assert.ok(Date.now() < deadline, 'the check did not begin');
      await sleep(25);
    }
    checking.kill('SIGKILL');
    await new Promise((resolve) => checking.once('close', resolve));
    assert.ok(checkProcesses().length >= 3, `the check runs on without its CLI: ${checkProcesses().join(', ')}`);

    const shown = await cli(['show', id, '--json']);
    const check = (JSON.parse(shown.stdout) as { check: { state: string; summary: string } }).check;
    assert.equal(check.state, 'failed', 'shown running after its runner died');
    assert.match(check.summary, new RegExp(`^The process running it \\(pid ${checking.pid}\\) ended before the check finished; the [3-9] processes it left running were ended; run the check again\\.$`));
    assert.deepEqual(checkProcesses(), [], 'nothing the check started runs once it is recorded failed');

    // The slot is free: an agent started now runs at once instead of waiting for a check nobody runs.
    const next = await cli(['start', '--', 'true']);
    assert.equal(next.code, 0, next.stderr);
    assert.doesNotMatch(next.stderr, /queued/);
    // And the check can run again.
    writeFileSync(join(worktree, 'quick'), '');
    const again = await cli(['check', id]);
    assert.equal(again.code, 0, again.stderr);
  });
});
