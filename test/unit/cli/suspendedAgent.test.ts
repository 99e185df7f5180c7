/**
 * `list` and `show` say that an agent's worker is suspended (SIGSTOP), as `stop` does, beside the
 * state the record keeps (bug 52); once continued, nothing is said.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProcStat } from '../../../src/core/proc';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: list and show say a SIGSTOPped worker is suspended', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });

  async function waitStopped(pid: number, stopped: boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((readProcStat(pid)?.state === 'T') !== stopped) {
      if (Date.now() > deadline) throw new Error(`pid ${pid} did not ${stopped ? 'stop' : 'continue'}`);
      await sleep(20);
    }
  }

  it('running · suspended (SIGSTOP) with kill -CONT in list, show and show --json; nothing once continued', async () => {
    const started = await cli(['start', '--json', '--', 'sh', '-c', 'sleep 600']);
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    const job = await sb.waitForState(id, ['running']);
    const worker = job.execution!.pid;
    const words = `suspended (SIGSTOP): worker ${worker} — kill -CONT ${worker} resumes it`;

    process.kill(worker, 'SIGSTOP');
    try {
      await waitStopped(worker, true);
      const listed = await cli(['list']);
      assert.equal(listed.code, 0, listed.stderr);
      const row = listed.stdout.split('\n').find((l) => l.startsWith(id))!;
      assert.match(row, new RegExp(`^${id}\\s+running\\s`), 'the state stays as recorded');
      assert.ok(row.includes(`[${words}]`), row);
      const shown = await cli(['show', id]);
      assert.ok(shown.stdout.split('\n').includes(`state:         running · ${words}`), shown.stdout);
      const json = JSON.parse((await cli(['show', id, '--json'])).stdout);
      assert.equal(json.lifecycle.state, 'running');
      assert.deepEqual(json.suspended, { worker, agent: [], launcher: null, checkRunner: null, cleanupRunner: null, words });
      const listJson = JSON.parse((await cli(['list', '--json'])).stdout) as { id: string; suspended: unknown }[];
      assert.deepEqual(listJson.find((j) => j.id === id)!.suspended, { worker, agent: [], launcher: null, checkRunner: null, cleanupRunner: null, words });
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    await waitStopped(worker, false);
    assert.doesNotMatch((await cli(['list'])).stdout, /suspended/);
    assert.equal(JSON.parse((await cli(['show', id, '--json'])).stdout).suspended, null);
    assert.equal((await cli(['stop', id])).code, 0);
  });

  it('screen, send and attach say at once that a suspended worker cannot answer, and work again once it is continued', async () => {
    // Bug 79: each waited 10 s on a connection the frozen worker's kernel accepted, then said it "did not answer".
    const started = await cli(['start', '--json', '--', 'sh', '-c', 'echo marker-$((6*7)); exec cat']);
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    const worker = (await sb.waitForState(id, ['running'])).execution!.pid;
    const sentence = `paddock %s: The worker of agent ${id} cannot answer while it is suspended (SIGSTOP): worker ${worker} — kill -CONT ${worker} resumes it.\n`;
    process.kill(worker, 'SIGSTOP');
    try {
      await waitStopped(worker, true);
      for (const args of [['screen', id], ['send', id, 'hello'], ['attach', id, '--read-only']]) {
        const began = Date.now();
        const run = await cli(args);
        assert.equal(run.code, 1, `${args[0]}: ${run.stderr}`);
        assert.equal(run.stderr, sentence.replace('%s', args[0]));
        assert.ok(Date.now() - began < 5000, `${args[0]} answered after ${Date.now() - began} ms`);
      }
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    await waitStopped(worker, false);
    const screen = await cli(['screen', id]);
    assert.equal(screen.code, 0, screen.stderr);
    assert.match(screen.stdout, /marker-42/);
    assert.equal((await cli(['stop', id])).code, 0);
  });

  // Bug 133: a check whose runner was stopped read "check running" (holding its slot), and another check was refused as "already running".
  it('a check whose runner is suspended: show says so, and another check is refused saying how to resume it', async () => {
    await sb.trustCheck('sleep 30');
    const started = await cli(['start', '--json', '--', 'true']);
    const { id } = JSON.parse(started.stdout) as { id: string };
    await sb.waitEnded(id);
    const checking = spawn(process.execPath, [CLI_SCRIPT, 'check', id], { cwd: sb.repo, env: sb.env, stdio: 'ignore', detached: true });
    const runner = checking.pid!;
    try {
      await sb.waitFor(id, (j) => j.check?.state === 'running');
      process.kill(runner, 'SIGSTOP');
      await waitStopped(runner, true);
      const json = JSON.parse((await cli(['show', id, '--json'])).stdout);
      assert.equal(json.check.state, 'running', 'the record stays as it was');
      const words = `suspended (SIGSTOP): check runner ${runner} — kill -CONT ${runner} resumes it`;
      assert.deepEqual(json.suspended, { worker: null, agent: [], launcher: null, checkRunner: runner, cleanupRunner: null, words });
      const row = (await cli(['list'])).stdout.split('\n').find((l) => l.startsWith(id))!;
      assert.ok(row.includes(`[${words}]`), row);
      const again = await cli(['check', id]);
      assert.equal(again.code, 2, again.stderr);
      assert.equal(again.stderr, `paddock check: A check of agent ${id} is already running in process ${runner}, which is suspended (SIGSTOP): kill -CONT ${runner} resumes it.\n`);
    } finally {
      // Killed stopped: a reader then finds the runner gone and ends what the check left running.
      process.kill(-runner, 'SIGKILL');
    }
    await sb.waitFor(id, (j) => j.check?.state === 'failed');
  });

  // Bug 134: a cleanup whose runner was stopped read as under way (*terminating*) with nothing at work.
  it('a cleanup whose runner is suspended in its teardown: show says so; continued, it finishes', async () => {
    const inTeardown = join(sb.root, 'in-teardown');
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ teardown: `touch '${inTeardown}'; sleep 1` }));
    assert.equal((await cli(['allow'])).code, 0);
    const started = await cli(['start', '--json', '--', 'true']);
    const { id } = JSON.parse(started.stdout) as { id: string };
    await sb.waitEnded(id);
    const cleaning = spawn(process.execPath, [CLI_SCRIPT, 'cleanup', id, '--yes'], { cwd: sb.repo, env: sb.env, stdio: 'ignore', detached: true });
    const exited = new Promise<number | null>((resolve) => cleaning.once('exit', resolve));
    const runner = cleaning.pid!;
    try {
      while (!existsSync(inTeardown)) await sleep(5);
      process.kill(runner, 'SIGSTOP');
      await waitStopped(runner, true);
      await sleep(1500); // the teardown has ended: nothing of the cleanup runs now
      const json = JSON.parse((await cli(['show', id, '--json'])).stdout);
      assert.equal(json.cleanup.phase, 'terminating', 'the record stays as it was');
      const words = `suspended (SIGSTOP): cleanup runner ${runner} — kill -CONT ${runner} resumes it`;
      assert.deepEqual(json.suspended, { worker: null, agent: [], launcher: null, checkRunner: null, cleanupRunner: runner, words });
    } finally {
      process.kill(runner, 'SIGCONT');
    }
    assert.equal(await exited, 0);
    assert.equal(JSON.parse((await cli(['show', id, '--json'])).stdout).cleanup.phase, 'complete');
  });
});
