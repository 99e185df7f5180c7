/**
 * `list` and `show` say that an agent's worker is suspended (SIGSTOP), as `stop` does, beside the
 * state the record keeps (bug 52); once continued, nothing is said.
 */
import * as assert from 'node:assert/strict';
import { readProcStat } from '../../../src/core/proc';
import { CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

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
      assert.deepEqual(json.suspended, { worker, agent: [], words });
      const listJson = JSON.parse((await cli(['list', '--json'])).stdout) as { id: string; suspended: unknown }[];
      assert.deepEqual(listJson.find((j) => j.id === id)!.suspended, { worker, agent: [], words });
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    await waitStopped(worker, false);
    assert.doesNotMatch((await cli(['list'])).stdout, /suspended/);
    assert.equal(JSON.parse((await cli(['show', id, '--json'])).stdout).suspended, null);
    assert.equal((await cli(['stop', id])).code, 0);
  });
});
