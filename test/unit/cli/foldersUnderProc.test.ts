/**
 * Bug 113: Node 20's recursive mkdir loops for ever at full CPU when mkdir(2) says ENOENT under a folder
 * that exists. `PADDOCK_HOME=/proc/paddock paddock start` hung, holding SIGTERM as a start does: only
 * SIGKILL ended it. Each run here is SIGKILLed past its bound, so the old build fails instead of hanging.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { assertOneSentence, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('a store or socket folder that cannot be made (bug 113)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  before(function () {
    if (!existsSync('/proc/self')) this.skip();
  });

  const cli = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, { cwd: sb.repo, env: { ...sb.env, ...env }, timeoutMs: 8000 });

  it('start with PADDOCK_HOME under /proc exits 1 in one sentence, at once', async () => {
    const began = Date.now();
    const run = await cli(['start', '--', 'true'], { PADDOCK_HOME: '/proc/paddock/home' });
    assert.equal(run.code, 1, `still running after 8 s, or: ${run.stderr}`);
    assert.ok(Date.now() - began < 8000);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'paddock start: /proc/paddock could not be created: /proc takes no new folder in it.\n');
  });

  it('start with PADDOCK_RUNTIME_DIR under /proc fails in one sentence, at once', async () => {
    const run = await cli(['start', '--', 'true'], { PADDOCK_RUNTIME_DIR: '/proc/paddock-sockets' });
    assert.equal(run.code, 1, `still running after 8 s, or: ${run.stderr}`);
    assertOneSentence(run.stderr);
    assert.match(run.stderr, /Cannot create the socket directory \/proc\/paddock-sockets: \/proc\/paddock-sockets could not be created: \/proc takes no new folder in it\.\n$/);
  });
});
