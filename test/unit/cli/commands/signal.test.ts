/**
 * `paddock signal` (the agents' hooks) from where no worker listens: a process outside any agent,
 * and a hook of an agent that has been cleaned up (its socket gone). One sentence each, in words:
 * before bug 58's fix the second printed Node's "connect ENOENT /…" errno text.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertOneSentence, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

describe('CLI: signal where no worker listens', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('outside any agent: exit 2; from a cleaned-up agent\'s hook: exit 1, no errno text', async () => {
    const outside = await runCli(['signal', 'waiting'], { cwd: sb.repo, env: sb.env });
    assert.equal(outside.code, 2);
    assertOneSentence(outside.stderr);

    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'printf "%s\\n%s\\n" "$PADDOCK_SOCKET" "$PADDOCK_AGENT_TOKEN" > hook-env.txt; sleep 30'] });
    await sb.waitForState(job.id, ['running']);
    const envFile = join(job.worktree!, 'hook-env.txt');
    for (let i = 0; i < 100 && !existsSync(envFile); i++) await new Promise((r) => setTimeout(r, 50));
    const [socket, token] = readFileSync(envFile, 'utf8').trim().split('\n');
    const hookEnv = { ...sb.env, PADDOCK_SOCKET: socket, PADDOCK_AGENT_TOKEN: token };
    const live = await runCli(['signal', 'waiting', '{"hook_event_name":"Notification"}'], { cwd: sb.repo, env: hookEnv });
    assert.equal(live.code, 0, live.stderr);

    const cleaned = await c.cleanup(job.id);
    assert.equal(cleaned.job.cleanup?.phase, 'complete', cleaned.job.cleanup?.lastError ?? '');
    const late = await runCli(['signal', 'running'], { cwd: sb.repo, env: hookEnv });
    assert.equal(late.code, 1);
    assertOneSentence(late.stderr);
    assert.doesNotMatch(late.stderr, /\bE[A-Z]{3,}\b|connect E/, `errno text: ${late.stderr}`);
    assert.match(late.stderr, /^paddock signal: Cannot connect to .*: no socket is there \(its worker has exited\)\.$/m);
  });
});
