/**
 * A relative PADDOCK_HOME and PADDOCK_RUNTIME_DIR name the folders under the directory the command
 * was run in, for the CLI and for the worker it starts alike (its cwd is the agent's worktree): the
 * agent starts, ends and cleans up. Before, the worker looked for its job in another folder and the
 * start failed ("worker exited before it started the agent").
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

describe('CLI: store and socket folders given as relative paths', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('are taken from the directory the command runs in, by the CLI and its worker alike', async () => {
    const env = { ...sb.env, PADDOCK_HOME: relative(sb.root, sb.home), PADDOCK_RUNTIME_DIR: relative(sb.root, sb.runtimeDir) };
    const cli = (args: string[]) => runCli(args, { cwd: sb.root, env });
    const started = await cli(['start', '--repo', 'repo', '--', 'sh', '-c', 'echo done > out.txt']);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed', 'the agent ran, under the store the CLI wrote to');
    assert.ok(existsSync(join(sb.home, 'jobs', id, 'job.json')));
    const cleaned = await cli(['cleanup', id, '--yes']);
    assert.equal(cleaned.code, 0, cleaned.stderr);
  });
});
