/**
 * The demo agent is a real program run as an agent: started through the
 * built-in `demo` profile it echoes the prompt, commits in its worktree, turns
 * waiting by its own signal, and on `y` commits again and completes; on `n`
 * it fails with exit 1.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI_SCRIPT, CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('the demo agent', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  async function startDemo(prompt: string) {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'demo', prompt });
    const waiting = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'waiting', 20_000);
    assert.equal(waiting.lifecycle.waitingReason, 'signal');
    const screen = execFileSync(process.execPath, [CLI_SCRIPT, 'screen', job.id], { env: sb.env, encoding: 'utf8' });
    assert.match(screen, new RegExp(prompt));
    assert.match(git(sb.repo, 'log', '-1', '--format=%s', `paddock/${job.id}`), new RegExp(`demo agent: ${prompt}`));
    return job;
  }

  it('on y: commits again and completes', async () => {
    const job = await startDemo('Tidy the README');
    execFileSync(process.execPath, [CLI_SCRIPT, 'send', job.id, 'y'], { env: sb.env });
    const done = await sb.waitFor(job.id, (j) => ['completed', 'failed'].includes(j.lifecycle.state));
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.match(git(sb.repo, 'log', '-1', '--format=%s', `paddock/${job.id}`), /demo agent: finish Tidy the README/);
  });

  it('on n: fails with exit 1', async () => {
    const job = await startDemo('Rename a variable');
    execFileSync(process.execPath, [CLI_SCRIPT, 'send', job.id, 'n'], { env: sb.env });
    const done = await sb.waitFor(job.id, (j) => ['completed', 'failed'].includes(j.lifecycle.state));
    assert.equal(done.lifecycle.state, 'failed');
    assert.equal(done.lifecycle.exitCode, 1);
  });
});
