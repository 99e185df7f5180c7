/**
 * Bug 225: a linked worktree of a repository the agent made in its worktree, itself inside it
 * (`git -C inner worktree add <wt>/innerLinked`), was taken for a worktree of another repository:
 * with staged changes there the cleanup stopped for consent (*worktree(s) of another repository
 * with staged changes … would be dropped*), though its index is in `inner/.git`, archived whole.
 * The real CLI and real git.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe("CLI: a nested repository's linked worktree inside the agent's worktree (bug 225)", function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('is said to be what it is, its staged changes need no consent, and a restore brings them back', async () => {
    const started = await runCli(['start', '--json', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const job = JSON.parse(started.stdout) as { id: string; worktree: string };
    await sb.waitEnded(job.id);
    const inner = join(job.worktree, 'inner');
    git(job.worktree, 'init', '-q', '-b', 'main', 'inner');
    writeFileSync(join(inner, 'a.txt'), 'a\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'a');
    const linked = join(job.worktree, 'innerLinked');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', linked);
    writeFileSync(join(linked, 'staged.txt'), 's\n');
    git(linked, 'add', 'staged.txt');

    const cleaned = await runCli(['cleanup', job.id, '--yes'], { cwd: sb.repo, env: sb.env, timeoutMs: 60_000 });
    assert.equal(cleaned.code, 0, `no consent asked: ${cleaned.stdout}${cleaned.stderr}`);
    assert.doesNotMatch(cleaned.stdout + cleaned.stderr, /another repository|worktree prune/);
    assert.ok(cleaned.stdout.includes("innerLinked: a linked worktree of inner, a repository in the agent's worktree; its HEAD, index (staged changes) and commits are in that repository's git data, archived with the worktree and restored with it"), cleaned.stdout);

    const target = join(sb.root, 'back');
    const restored = await runCli(['restore', job.id, '--to', target], { cwd: sb.repo, env: sb.env, timeoutMs: 60_000 });
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(git(join(target, 'innerLinked'), 'diff', '--cached', '--name-only').trim(), 'staged.txt', 'its staged change is back');
    assert.equal(git(join(target, 'innerLinked'), 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'side');
  });
});
