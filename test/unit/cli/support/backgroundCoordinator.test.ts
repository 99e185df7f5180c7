/**
 * The CLI with no window open: `paddock start` that queues an agent starts a
 * background coordinator (the real bundle, dist/cli.js), which launches the
 * agent when a slot frees and then exits by itself.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('background coordinator', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  let background: number | undefined;
  afterEach(() => {
    if (background !== undefined && alive(background)) process.kill(background, 'SIGKILL');
    background = undefined;
  });

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  it('start that queues an agent starts one; it launches the agent when a slot frees and exits when idle', async () => {
    sb.store.policy.write({ maxConcurrent: 1 });
    const first = await cli(['start', '--title', 'first', '--', 'sh', '-c', 'read x']);
    assert.equal(first.code, 0, first.stderr);
    const firstId = first.stdout.trim();
    await sb.waitForState(firstId, ['running']);
    const second = await cli(['start', '--title', 'second', '--', 'sh', '-c', 'read x']);
    assert.equal(second.code, 0, second.stderr);
    const secondId = second.stdout.trim();
    const said = /^Agent \w+ is queued: a background coordinator will start it when a slot frees up \(pid (\d+), log (\S+); it exits when nothing is left to do\)\.\n$/.exec(second.stderr);
    assert.ok(said, second.stderr);
    background = Number(said[1]);
    const log = said[2];
    assert.equal((await sb.store.read(secondId)).lifecycle.state, 'queued');
    await sleep(1500);
    assert.ok(alive(background), 'it waits while an agent is queued');

    const stopped = await cli(['stop', firstId]);
    assert.equal(stopped.code, 0, stopped.stderr);
    await sb.waitForState(secondId, ['running']);
    const deadline = Date.now() + 15_000;
    while (alive(background) && Date.now() < deadline) await sleep(100);
    assert.ok(!alive(background), 'it exits once nothing is left to do');
    assert.match(readFileSync(log, 'utf8'), /nothing is left to do: exiting/);
    assert.equal((await sb.store.read(secondId)).lifecycle.state, 'running', 'the agent it launched keeps running');
  });
});
