/**
 * Bug 224: a FIFO named `.git` in the agent's worktree (`mkdir sub && mkfifo sub/.git`) was opened
 * as a `.git` file by the capture: `paddock cleanup ID --yes` sat in `capturing` for ever (a pool
 * thread stuck in open(2), so even SIGTERM was not heard). The real CLI, a real FIFO, never written.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: a FIFO named .git in the agent\'s worktree (bug 224)', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('is archived as the FIFO it is, never read: the cleanup ends, and a restore brings the FIFO back', async () => {
    const started = await runCli(['start', '--json', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const job = JSON.parse(started.stdout) as { id: string; worktree: string };
    await sb.waitEnded(job.id);
    const fifo = join(job.worktree, 'sub', '.git');
    mkdirSync(join(job.worktree, 'sub'));
    execFileSync('mkfifo', [fifo]);
    try {
      const cleaned = await runCli(['cleanup', job.id, '--yes'], { cwd: sb.repo, env: sb.env, timeoutMs: 40_000 });
      assert.equal(cleaned.code, 0, `the cleanup ends (exit ${cleaned.code}): ${cleaned.stdout}${cleaned.stderr}`);
      assert.equal(existsSync(job.worktree), false, 'the worktree was removed');
      const shown = JSON.parse((await runCli(['show', job.id, '--json'], { cwd: sb.repo, env: sb.env })).stdout) as { evidence: { summary: { nested: string[] } } };
      assert.deepEqual(shown.evidence.summary.nested, [], 'a FIFO named .git is no nested repository');
      const target = join(sb.root, 'back');
      const restored = await runCli(['restore', job.id, '--to', target], { cwd: sb.repo, env: sb.env, timeoutMs: 40_000 });
      assert.equal(restored.code, 0, restored.stderr);
      assert.ok(lstatSync(join(target, 'sub', '.git')).isFIFO(), 'it comes back as what it was');
    } finally {
      // Frees a reader an old build left stuck in open(2) (opened and closed, never written).
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        /* no reader, or gone */
      }
    }
  });
});
