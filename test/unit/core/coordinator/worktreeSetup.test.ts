/**
 * Worktree setup end to end, on a real repository with real workers: files
 * brought in, the setup command (success, failure, timeout, stop, retry), the
 * teardown at cleanup, port blocks and the agent's variables, and trust.
 */
import * as assert from 'node:assert/strict';
import { canCleanUpAnyway, canSend } from '../../../../src/core/operations/rules';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, Server } from 'node:net';
import { findByEnvMarker } from '../../../../src/core/proc';
import type { JobRecord } from '../../../../src/core/store';
import { RepoConfigTrust } from '../../../../src/core/repoConfig/trust';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { assertOneSentence, CoordinatorSandbox, git, runCli, sleep, useCoordinatorSandbox } from './coordinatorFixture';

describe('Coordinator: worktree setup', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  function writePaddockJson(config: object): void {
    writeFileSync(join(sb.repo, '.paddock.json'), `${JSON.stringify(config, null, 2)}\n`);
  }

  async function allow(): Promise<void> {
    await new RepoConfigTrust(sb.home).allow((await readRepoConfig(sb.repo))!);
  }

  async function log(id: string): Promise<string> {
    return (await sb.store.readOutput(id)).toString('utf8');
  }

  it('copies the ignored files named in .paddock.json and .worktreeinclude before the agent starts', async () => {
    writeFileSync(join(sb.repo, '.gitignore'), '.env*\n*.local.json\n');
    git(sb.repo, 'add', '.gitignore');
    git(sb.repo, 'commit', '-q', '-m', 'ignore');
    writeFileSync(join(sb.repo, '.env'), 'TOKEN=abc\n');
    writeFileSync(join(sb.repo, 'app.local.json'), '{}\n');
    writeFileSync(join(sb.repo, '.worktreeinclude'), '*.local.json\n');
    writePaddockJson({ copy: ['.env'] }); // no commands: no trust needed
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'cat .env app.local.json > seen.txt'] });
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.equal(readFileSync(join(job.worktree!, 'seen.txt'), 'utf8'), 'TOKEN=abc\n{}\n');
    const brought = (await sb.store.readTimeline(job.id)).filter((e) => e.type === 'worktree-files');
    assert.deepEqual(
      brought.map((e) => e.message),
      ['copied 2 and linked 0 untracked path(s) into the worktree'],
    );
  });

  it('a file that cannot be copied fails the start with the reason, and the worktree and branch it made are removed', async () => {
    // A path of 4,090 bytes under the repository is past PATH_MAX (4,096) under the longer worktree path: the copy fails ENAMETOOLONG.
    let dir = join(sb.repo, 'deep');
    while (dir.length + 101 + 1 + 150 <= 4090) dir = join(dir, 'd'.repeat(100));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'f'.repeat(4090 - dir.length - 1)), 'x');
    writePaddockJson({ copy: ['/deep/'] });
    const c = sb.coordinator();
    const wanted = /^Could not copy deep\/d+…f+ into the worktree: ENAMETOOLONG \(name too long\)$/;
    await assert.rejects(c.start({ repo: sb.repo, command: ['sh', '-c', 'echo RAN > ran.txt'] }), (err: Error) => wanted.test(err.message.replace(/^Agent \w+ failed to start: /, '')));
    const [done] = (await sb.store.list()).filter((e) => e.ok).map((e) => (e as { job: JobRecord }).job);
    assert.equal(done.lifecycle.state, 'failed');
    assert.match(done.lifecycle.detail ?? '', wanted);
    assert.equal(done.lifecycle.startedAt, null, 'the agent never ran');
    assert.equal(done.worktree, null);
    assert.deepEqual(sb.worktrees(), [sb.repo], 'the worktree it made is gone');
    assert.deepEqual(sb.branches(), ['main'], 'and its branch');
  });

  it('runs setup in the worktree before the agent, shows "setting up", and logs its output', async () => {
    writePaddockJson({ setup: 'sleep 1; echo SETUP-RAN; echo $PADDOCK_AGENT_ID > prepared.txt' });
    await allow();
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'cat prepared.txt; echo AGENT-RAN'] });
    const during = await sb.waitFor(job.id, (j) => j.lifecycle.detail === 'setting up' || j.lifecycle.state !== 'starting');
    assert.equal(during.lifecycle.state, 'starting');
    assert.equal(during.lifecycle.detail, 'setting up');
    assert.equal(during.setup?.state, 'running');
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.deepEqual(done.setup, { ports: [], state: 'done', exitCode: 0 });
    assert.equal(readFileSync(join(job.worktree!, 'prepared.txt'), 'utf8'), `${job.id}\n`);
    assert.match(await log(job.id), new RegExp(`\\nSETUP-RAN\\r?\\n[\\s\\S]*\\n${job.id}\\r?\\nAGENT-RAN`));
  });

  it('a failing setup fails the agent with its exit code, keeps the worktree and its output; Retry runs it again', async () => {
    // Fails the first time, succeeds the second: Retry must run setup again.
    writePaddockJson({ setup: 'if [ -f tried ]; then echo SECOND-TRY; else touch tried; echo BROKEN-SETUP; exit 3; fi' });
    await allow();
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
    const failed = await sb.waitEnded(job.id);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.equal(failed.lifecycle.detail, 'setup failed (exit 3)');
    assert.equal(failed.lifecycle.startedAt, null);
    assert.deepEqual(failed.setup, { ports: [], state: 'failed', exitCode: 3 });
    assert.ok(existsSync(job.worktree!), 'the worktree stays for a retry');
    assert.match(await log(job.id), /\nBROKEN-SETUP\r?\n/);
    assert.doesNotMatch(await log(job.id), /AGENT-RAN/);

    await c.retry(job.id);
    const retried = await sb.waitEnded(job.id);
    assert.equal(retried.lifecycle.state, 'completed', retried.lifecycle.detail ?? '');
    assert.equal(retried.setup?.state, 'done');
    assert.match(await log(job.id), /\nBROKEN-SETUP\r?\n[\s\S]*\nSECOND-TRY\r?\n[\s\S]*\nAGENT-RAN\r?\n/);

    // Setup succeeded once: a further retry goes straight to the agent.
    await c.retry(job.id);
    const again = await sb.waitEnded(job.id);
    assert.equal(again.lifecycle.generation, 3);
    assert.equal(again.lifecycle.state, 'completed');
    assert.equal((await log(job.id)).match(/\nSECOND-TRY\r?\n/g)?.length, 1, 'setup ran twice in all, not three times');
    assert.equal((await log(job.id)).match(/\nAGENT-RAN\r?\n/g)?.length, 2);
  });

  it('a setup that runs past its timeout is ended with everything it started, and the agent fails', async () => {
    const c = sb.coordinator({ worktree: { setup: 'echo WAITING; sleep 30 & sleep 30', setupTimeoutSeconds: 1 } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
    const failed = await sb.waitEnded(job.id);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.equal(failed.lifecycle.detail, 'setup timed out after 1 s');
    assert.equal(failed.setup?.state, 'failed');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'no setup process is left');
    assert.match(await log(job.id), /\nWAITING\r?\n/);
    assert.match(await log(job.id), /setup timed out after 1 s/);
  });

  it('a failing setup ends what it started before the failure is recorded', async () => {
    const c = sb.coordinator({ worktree: { setup: 'setsid sleep 5005 >/dev/null 2>&1 & sleep 0.5; exit 3' } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
    const failed = await sb.waitEnded(job.id);
    assert.equal(failed.lifecycle.detail, 'setup failed (exit 3)');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'the escaped sleep is ended with the failed setup');
  });

  it('a setup past its timeout ends an escaped child that ignores SIGTERM (KILL after the grace) before the failure is recorded', async () => {
    const c = sb.coordinator({ worktree: { setup: `setsid sh -c "trap '' TERM; sleep 5006" >/dev/null 2>&1 & sleep 30`, setupTimeoutSeconds: 1 } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
    const failed = await sb.waitEnded(job.id);
    assert.equal(failed.lifecycle.detail, 'setup timed out after 1 s');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'the SIGTERM-deaf escapee got SIGKILL before the failure was recorded');
    const took = Date.parse(failed.lifecycle.endedAt!) - Date.parse(job.createdAt);
    assert.ok(took >= 2500, `recorded ${took} ms after the start: after the 2 s grace, not before the KILL`);
  });

  it('a prompt sent during setup is refused as setting up, by the rule and by the worker, never as "ended"', async () => {
    const c = sb.coordinator({ worktree: { setup: 'sleep 30' } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'read line; echo "got:$line"; sleep 5'] });
    const settingUp = await sb.waitFor(job.id, (j) => j.setup?.state === 'running');
    assert.equal(canSend(settingUp), false, 'Send Prompt is not offered while it sets up');
    await assert.rejects(c.send(job.id, 'hello'), { kind: 'usage', message: `Agent ${job.id} is setting up its worktree; text can be sent once the agent runs.` });
    const cli = await runCli(['send', job.id, 'hello'], { cwd: sb.repo, env: sb.env });
    assert.equal(cli.code, 2, cli.stderr);
    assertOneSentence(cli.stderr);
    assert.match(cli.stderr, /is setting up its worktree/);
    // A client that skips the rule (an older CLI) hears the same from the worker itself.
    const client = await WorkerClient.connect(sb.store, job.id);
    try {
      await client.hello();
      await assert.rejects(client.send('hello'), /has not started yet \(its worktree setup is running\); send once it runs\./);
    } finally {
      client.dispose();
    }
    await c.stop(job.id);
  });

  // Bug 116: an end recorded without the worker left the setup `running` on an ended record.
  for (const how of ['SIGKILL', 'SIGSTOP'] as const) {
    it(`a setup whose worker ${how === 'SIGKILL' ? 'is killed (orphaned)' : 'is frozen and stopped with --force'} is not said to run on`, async () => {
      const c = sb.coordinator({ worktree: { setup: 'sleep 30' } });
      const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
      const settingUp = await sb.waitFor(job.id, (j) => j.setup?.state === 'running' && j.execution !== null);
      process.kill(settingUp.execution!.pid, how);
      if (how === 'SIGSTOP') {
        const report = await c.stop(job.id, { force: true });
        assert.equal(report.stopped, true, report.reason ?? '');
      }
      const ended = await sb.waitEnded(job.id);
      assert.equal(ended.lifecycle.state, how === 'SIGKILL' ? 'orphaned' : 'cancelled');
      assert.equal(ended.setup?.state, 'failed');
      const shown = await runCli(['show', job.id, '--json'], { cwd: sb.repo, env: sb.env });
      assert.equal(JSON.parse(shown.stdout).setup.state, 'failed');
      await c.stop(job.id, { force: true });
    });
  }

  it('a stop during setup ends the setup and cancels the agent', async () => {
    const c = sb.coordinator({ worktree: { setup: 'sleep 30' } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
    await sb.waitFor(job.id, (j) => j.setup?.state === 'running');
    const report = await c.stop(job.id);
    assert.equal(report.stopped, true, report.reason ?? '');
    const ended = await sb.waitEnded(job.id);
    assert.equal(ended.lifecycle.state, 'cancelled');
    assert.equal(ended.lifecycle.detail, 'stopped during setup');
    assert.equal(ended.setup?.state, 'failed', 'not done: a retry runs it again');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), []);
    assert.doesNotMatch(await log(job.id), /AGENT-RAN/);
  });

  it('runs teardown at cleanup before the evidence is captured', async () => {
    const marker = join(sb.root, 'teardown.txt');
    const c = sb.coordinator({ worktree: { teardown: `echo TEARDOWN-RAN; echo "$PADDOCK_AGENT_ID $(ls)" > ${marker}; echo gone > made-by-teardown.txt` } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo work > work.txt'] });
    await sb.waitEnded(job.id);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.phase, 'complete', report.job.cleanup?.lastError ?? '');
    assert.equal(report.job.cleanup?.teardownDone, true);
    assert.match(readFileSync(marker, 'utf8'), new RegExp(`^${job.id} [\\s\\S]*work\\.txt`));
    assert.match(await log(job.id), /\nTEARDOWN-RAN\r?\n/);
    // Ran before the capture: what it wrote is in the snapshot.
    assert.equal(git(sb.repo, 'show', `${report.job.evidence!.snapshotRef}:made-by-teardown.txt`), 'gone');
  });

  // Bug 63: the teardown's output filled the agent's capped log (8 MiB) and pushed all of the agent's own out.
  it('a teardown that prints 20 MB leaves its head and tail in the log, and the agent\'s last output stays', async () => {
    const c = sb.coordinator({ worktree: { teardown: `echo TEARDOWN-FIRST; yes 'teardown flood line' | head -c 20000000; echo; echo TEARDOWN-LAST` } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-LAST-WORDS'] });
    await sb.waitEnded(job.id);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.phase, 'complete', report.job.cleanup?.lastError ?? '');
    const text = await log(job.id);
    assert.match(text, /^AGENT-LAST-WORDS\r\n[\s\S]*teardown: [\s\S]*\nTEARDOWN-FIRST\r\n/, 'the agent\'s output, then the head of the teardown\'s');
    const left = /──── ([\d,]+) bytes of the teardown's output left out ────/.exec(text);
    assert.ok(left, 'a line says what was left out');
    assert.ok(Number(left[1].replace(/,/g, '')) > 19_900_000, left[1]);
    assert.match(text.slice(left.index), /\r\nteardown flood line\r\n[\s\S]*\nTEARDOWN-LAST\r\n$/, 'its tail follows, from a whole line');
    assert.ok(text.length < 100_000, `the log holds ${text.length} bytes`);
  });

  // Bug 63, checked for setup too: it runs until it has succeeded, so it never follows the agent's
  // output, but a flood of it filled the log and pushed its earlier failed run's output out.
  it('a setup that prints a lot leaves its head and tail in the log, after its earlier run\'s output', async () => {
    writePaddockJson({ setup: 'if [ -f tried ]; then echo SETUP-FIRST; yes "setup flood line" | head -c 3000000; echo; echo SETUP-LAST; else touch tried; echo BROKEN-SETUP; exit 3; fi' });
    await allow();
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo AGENT-RAN'] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'failed');
    await c.retry(job.id);
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const text = await log(job.id);
    const left = /──── ([\d,]+) bytes of the setup's output left out ────/.exec(text);
    assert.ok(left, 'a line says what was left out');
    assert.match(text.slice(0, left.index), /\nBROKEN-SETUP\r?\n[\s\S]*\nSETUP-FIRST\r?\nsetup flood line/);
    assert.match(text.slice(left.index), /\nSETUP-LAST\r?\n[\s\S]*setup done[\s\S]*\nAGENT-RAN\r?\n/);
    assert.ok(text.length < 100_000, `the log holds ${text.length} bytes`);
  });

  it('a failing teardown fails the terminating stage with its output and is retried like any stage', async () => {
    const ok = join(sb.root, 'teardown-may-pass');
    const c = sb.coordinator({ worktree: { teardown: `test -f ${ok} || { echo compose is down already >&2; exit 4; }` } });
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(job.id);
    const first = await c.cleanup(job.id);
    assert.equal(first.job.cleanup?.phase, 'incomplete');
    assert.equal(first.job.cleanup?.stage, 'terminating');
    assert.equal(first.job.cleanup?.lastError, 'teardown failed (exit 4): compose is down already');
    assert.ok(first.job.cleanup?.nextAttemptAt, 'retried on the backoff');
    assert.ok(existsSync(job.worktree!), 'nothing removed');
    writeFileSync(ok, '');
    const second = await c.retryCleanup(job.id);
    assert.equal(second.job.cleanup?.phase, 'complete', second.job.cleanup?.lastError ?? '');
    assert.equal(existsSync(job.worktree!), false);
  });

  // Found by hand: the teardown runs in a session of its own, which a terminal's Ctrl-C does not reach:
  // an interrupted `paddock cleanup` left it running (the CLI passes its interrupt as `abort`).
  it('an interrupted cleanup ends its teardown with everything it started, fails the stage saying so, removes nothing, and even under "anyway"', async () => {
    const began = join(sb.root, 'teardown-began');
    const quick = join(sb.root, 'teardown-quick');
    const c = sb.coordinator({ worktree: { teardown: `touch ${began}; test -f ${quick} || { sleep 38 & sleep 39; }` } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo work > work.txt'] });
    await sb.waitEnded(job.id);
    for (const anyway of [false, true]) {
      rmSync(began, { force: true });
      const abort = new AbortController();
      const cleaning = c.cleanup(job.id, { abort: abort.signal, dropUnarchivable: anyway });
      while (!existsSync(began)) await sleep(25);
      await sleep(200);
      const at = Date.now();
      abort.abort();
      const report = await cleaning;
      assert.ok(Date.now() - at < 5000, `returned ${Date.now() - at} ms after the interrupt`);
      assert.equal(report.job.cleanup?.phase, 'incomplete');
      assert.equal(report.job.cleanup?.stage, 'terminating');
      assert.equal(report.job.cleanup?.lastError, 'teardown interrupted and ended, with everything it started');
      assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', job.id), [], 'nothing of the teardown runs');
      assert.ok(existsSync(join(job.worktree!, 'work.txt')), 'nothing removed');
    }
    writeFileSync(quick, '');
    const done = await c.retryCleanup(job.id);
    assert.equal(done.job.cleanup?.phase, 'complete', done.job.cleanup?.lastError ?? '');
    assert.equal(git(sb.repo, 'show', `${done.job.evidence!.snapshotRef}:work.txt`), 'work');
  });

  it('a teardown that always fails is skipped, and recorded so, when the person cleans up anyway; the work is still saved', async () => {
    const c = sb.coordinator({ worktree: { teardown: 'echo compose is gone >&2; exit 4' } });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo work > work.txt'] });
    await sb.waitEnded(job.id);
    const first = await c.cleanup(job.id);
    assert.equal(first.job.cleanup?.stage, 'terminating');
    assert.equal(first.job.cleanup?.lastError, 'teardown failed (exit 4): compose is gone');
    assert.ok(canCleanUpAnyway(first.job), 'the window offers Clean Up Anyway (it skips the teardown)');
    c.dispose(); // the CLI leads now
    await c.whenIdle();
    const run = await runCli(['cleanup', job.id, '--yes', '--anyway'], { cwd: sb.repo, env: sb.env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /teardown skipped as agreed \(teardown failed \(exit 4\)\)/);
    const done = await sb.store.read(job.id);
    assert.equal(done.cleanup?.phase, 'complete');
    assert.equal(done.cleanup?.teardownSkipped, true);
    assert.equal(canCleanUpAnyway(done), false);
    assert.equal(done.cleanup?.teardownDone, undefined);
    assert.equal(git(sb.repo, 'show', `${done.evidence!.snapshotRef}:work.txt`), 'work', 'the capture ran in full');
    const skipped = (await sb.store.readTimeline(job.id)).filter((e) => e.type === 'teardown-skipped');
    assert.deepEqual(skipped.map((e) => e.message), ['teardown skipped as agreed: teardown failed (exit 4): compose is gone']);
    assert.equal((await log(job.id)).match(/\ncompose is gone\r\n/g)?.length, 2, 'it was run again before being skipped');
  });

  it('a teardown that succeeded is not run again when a later stage fails and the cleanup is retried', async () => {
    const c = sb.coordinator({ worktree: { teardown: 'echo TEARDOWN-RAN' } });
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(job.id);
    // Not the teardown's: a process of the person's that holds the worktree fails the removing stage.
    const holder = sb.spawnOwned('sleep', ['60'], job.worktree!);
    const first = await c.cleanup(job.id);
    assert.equal(first.job.cleanup?.stage, 'removing', first.job.cleanup?.lastError ?? '');
    assert.equal(first.job.cleanup?.teardownDone, true);
    const second = await c.retryCleanup(job.id);
    assert.equal(second.job.cleanup?.stage, 'removing');
    assert.equal(second.job.cleanup?.teardownDone, true, 'a new attempt keeps what the last one did');
    process.kill(holder, 'SIGKILL');
    const third = await c.retryCleanup(job.id);
    assert.equal(third.job.cleanup?.phase, 'complete', third.job.cleanup?.lastError ?? '');
    assert.equal((await log(job.id)).match(/TEARDOWN-RAN\r?\n/g)?.length, 1, 'the teardown ran once in three attempts');
  });

  it('gives live agents distinct port blocks and the variables; a block is free again once cleaned up', async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45100-45105' } });
    const show = ['sh', '-c', 'echo "$PADDOCK_PORT|$PADDOCK_PORTS|$PADDOCK_AGENT_ID|$PADDOCK_WORKTREE|$PADDOCK_REPO" > env.txt'];
    const a = await c.start({ repo: sb.repo, command: show });
    const b = await c.start({ repo: sb.repo, command: show });
    assert.deepEqual(a.setup?.ports, [45100, 45101]);
    assert.deepEqual(b.setup?.ports, [45102, 45103]);
    await sb.waitEnded(a.id);
    await sb.waitEnded(b.id);
    assert.equal(readFileSync(join(a.worktree!, 'env.txt'), 'utf8'), `45100|45100,45101|${a.id}|${a.worktree}|${sb.repo}\n`);
    assert.equal(readFileSync(join(b.worktree!, 'env.txt'), 'utf8'), `45102|45102,45103|${b.id}|${b.worktree}|${sb.repo}\n`);
    // Ended but not cleaned up: still held.
    const third = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual(third.setup?.ports, [45104, 45105]);
    await assert.rejects(c.start({ repo: sb.repo, command: ['true'] }), /No block of 2 free ports is left in 45100-45105: clean up ended agents \(.+ ports in it\) or widen paddock\.worktree\.portRange\./);
    const cleaned = await c.cleanup(a.id);
    assert.equal(cleaned.job.cleanup?.phase, 'complete');
    const fourth = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual(fourth.setup?.ports, [45100, 45101], "a's block was released by its cleanup");
  });

  it('an agent stopped while queued gives its port block back at once: it never had a worktree (bug 56)', async () => {
    const c = sb.coordinator({ maxConcurrent: 1, worktree: { ports: 2, portRange: '45300-45303' } });
    const running = await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    const queued = await c.start({ repo: sb.repo, command: ['true'] });
    assert.equal(queued.lifecycle.state, 'queued');
    assert.deepEqual(queued.setup?.ports, [45302, 45303]);
    assert.equal((await c.stop(queued.id)).state, 'cancelled');
    assert.equal(existsSync(queued.worktree!), false, 'no worktree was ever made');
    const next = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual(next.setup?.ports, [45302, 45303], 'the cancelled one held nothing');
    // An ended agent whose worktree is still there keeps its block (a retry runs with it).
    await c.stop(running.id, { force: true });
    await assert.rejects(c.start({ repo: sb.repo, command: ['true'] }), /No block of 2 free ports is left in 45300-45303/);
  });

  it('skips ports another program listens on (loopback, every IPv4 address, every IPv6 one), and says so when none is left', async () => {
    const listen = (port: number, host: string) =>
      new Promise<Server>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen({ port, host }, () => resolve(server));
      });
    // The person's dev server on loopback, another on every IPv4 address, a third on every IPv6 one (where the machine has IPv6).
    const servers = [await listen(45201, '127.0.0.1'), await listen(45204, '0.0.0.0')];
    const v6 = await listen(45206, '::').catch(() => undefined);
    if (v6) servers.push(v6);
    try {
      const c = sb.coordinator({ worktree: { ports: 2, portRange: '45200-45209' } });
      const first = await c.start({ repo: sb.repo, command: ['true'] });
      assert.deepEqual(first.setup?.ports, [45202, 45203], 'not 45200-45201: 45201 is in use');
      const second = await c.start({ repo: sb.repo, command: ['true'] });
      assert.deepEqual(second.setup?.ports, v6 ? [45207, 45208] : [45205, 45206], 'past 45204 (and 45206 when IPv6 is there)');
      if (!v6) return;
      await assert.rejects(c.start({ repo: sb.repo, command: ['true'] }), /No block of 2 free ports is left in 45200-45209/);
    } finally {
      for (const server of servers) server.close();
    }
  });

  it('a malformed port range fails only the starts that ask for ports, in one sentence, before any agent exists', async () => {
    const noPorts = sb.coordinator({ worktree: { portRange: '41000-40000' } });
    const job = await noPorts.start({ repo: sb.repo, command: ['true'] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    const withPorts = sb.coordinator({ worktree: { portRange: '41000-40000', ports: 1 } });
    await assert.rejects(withPorts.start({ repo: sb.repo, command: ['true'] }), (err: Error) => {
      assert.equal(err.message, 'paddock.worktree.portRange "41000-40000" is not a range like 41000-41999 within 1024-65535.');
      return true;
    });
    assert.equal((await sb.store.list()).length, 1, 'no agent was created for the refused start');
  });

  it('an agent without ports gets the identity variables and no port ones, even if the starter had them', async () => {
    sb.env.PADDOCK_PORT = '1';
    sb.env.PADDOCK_AGENT_ID = 'parent';
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo "${PADDOCK_PORT-unset}|${PADDOCK_PORTS-unset}|$PADDOCK_AGENT_ID" > env.txt'] });
    await sb.waitEnded(job.id);
    assert.equal(readFileSync(join(job.worktree!, 'env.txt'), 'utf8'), `unset|unset|${job.id}\n`);
  });

  it("setup, the agent, its check and its teardown get the agent's own Paddock variables, never the caller's", async () => {
    // Started from inside another agent: the parent's marker, socket, token and ports are in the environment.
    Object.assign(sb.env, { PADDOCK_JOB_ID: 'otheragent', PADDOCK_PORT: '9999', PADDOCK_PORTS: '9999', PADDOCK_SOCKET: '/tmp/parent.sock', PADDOCK_AGENT_TOKEN: 'parent-token', PADDOCK_AGENT_ID: 'otheragent' });
    const seen = join(sb.root, 'seen');
    const show = (who: string) => `echo "${who} $PADDOCK_JOB_ID|$PADDOCK_AGENT_ID|\${PADDOCK_PORT-unset}|\${PADDOCK_SOCKET-unset}|\${PADDOCK_AGENT_TOKEN-unset}" >> ${seen}`;
    const c = sb.coordinator({ worktree: { setup: show('setup'), teardown: show('teardown') }, checkCommand: show('check') });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo "agent $PADDOCK_JOB_ID|$PADDOCK_AGENT_ID|${PADDOCK_PORT-unset}" >> ' + seen] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    await c.check(job.id);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.phase, 'complete', report.job.cleanup?.lastError ?? '');
    const lines = readFileSync(seen, 'utf8').trim().split('\n');
    const id = job.id;
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.match(lines[0], new RegExp(`^setup ${id}\\|${id}\\|unset\\|/\\S+\\|[0-9a-f]+$`), 'setup: its own socket and token');
    assert.equal(lines[1], `agent ${id}|${id}|unset`);
    assert.equal(lines[2], `check ${id}|${id}|unset|unset|unset`);
    assert.equal(lines[3], `teardown ${id}|${id}|unset|unset|unset`);
    assert.doesNotMatch(lines[0], /parent/);
  });

  it("redacts the agent's secrets from its teardown's and its check's output as from its setup's and its own", async () => {
    // Only in the environment the agent was started with: this process (the cleanup's, the check's) does not know it.
    const secret = 'plain-secret-value-7d41c9';
    sb.env.ANTHROPIC_API_KEY = secret;
    const say = (who: string) => `echo "${who} sees $ANTHROPIC_API_KEY"`;
    const c = sb.coordinator({ worktree: { setup: say('setup'), teardown: `${say('teardown')}; exit 5` }, checkCommand: say('check') });
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', say('agent')] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    const check = await c.check(job.id);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.stage, 'terminating');
    const text = await log(job.id);
    for (const who of ['setup', 'agent', 'teardown']) assert.match(text, new RegExp(`${who} sees \\[REDACTED\\]`), who);
    assert.equal(text.includes(secret), false, 'the secret is nowhere in the log');
    assert.equal((await sb.store.readTimeline(job.id)).some((e) => e.message?.includes(secret)), false, 'nor in the timeline');
    assert.equal(report.job.cleanup?.lastError, 'teardown failed (exit 5): teardown sees [REDACTED]');
    assert.equal(check.summary, 'check sees [REDACTED]');
    assert.equal(readFileSync(join(sb.store.jobDir(job.id), 'job.json'), 'utf8').includes(secret), false, 'nor in the record');
  });

  it('refuses .paddock.json commands until that exact file is allowed, and again once it changed', async () => {
    writePaddockJson({ setup: 'echo SETUP' });
    const c = sb.coordinator();
    await assert.rejects(
      c.start({ repo: sb.repo, command: ['true'] }),
      new RegExp(`\\.paddock\\.json is not allowed, so the setup command will not run: trust the workspace in VS Code, or review the file and run \`paddock allow --repo ${sb.repo}\`\\.$`),
    );
    assert.deepEqual(await sb.store.list(), [], 'refused before any agent was created');
    await allow();
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');

    writePaddockJson({ setup: 'echo CHANGED', teardown: 'echo DOWN' });
    await assert.rejects(c.start({ repo: sb.repo, command: ['true'] }), /is changed since it was allowed, so the setup and teardown commands will not run/);
  });

  it('a trusted workspace, or commands from the settings, need no allow', async () => {
    writePaddockJson({ setup: 'echo FROM-FILE' });
    const trusted = sb.coordinator({ trustedFolders: [sb.repo] });
    const a = await trusted.start({ repo: sb.repo, command: ['true'] });
    assert.equal((await sb.waitEnded(a.id)).setup?.state, 'done');
    trusted.dispose(); // one coordinator at a time leads the launches
    await trusted.whenIdle();
    assert.match(await log(a.id), /\nFROM-FILE\r?\n/);
    const overridden = sb.coordinator({ worktree: { setup: 'echo FROM-SETTINGS' } });
    const b = await overridden.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(b.id);
    assert.match(await log(b.id), /\nFROM-SETTINGS\r?\n/);
    assert.doesNotMatch(await log(b.id), /FROM-FILE/);
  });

  it('a trusted workspace vouches only for the repositories it holds (bug 56)', async () => {
    writePaddockJson({ setup: 'echo FROM-FILE' });
    const elsewhere = join(sb.root, 'another-project');
    mkdirSync(elsewhere, { recursive: true });
    // A window trusting another folder starts an agent in this repository (a row's repository, a command given a path).
    const other = sb.coordinator({ trustedFolders: [elsewhere] });
    await assert.rejects(other.start({ repo: sb.repo, command: ['true'] }), /\.paddock\.json is not allowed, so the setup command will not run/);
    assert.deepEqual(await sb.store.list(), [], 'refused before any agent was created');
    other.dispose();
    await other.whenIdle();
    // A folder of the repository (a package of a monorepo) vouches for it, as for its check.
    mkdirSync(join(sb.repo, 'packages', 'app'), { recursive: true });
    const inner = sb.coordinator({ trustedFolders: [join(sb.repo, 'packages', 'app')] });
    const job = await inner.start({ repo: sb.repo, command: ['true'] });
    assert.equal((await sb.waitEnded(job.id)).setup?.state, 'done');
    inner.dispose();
    await inner.whenIdle();
  });
});
