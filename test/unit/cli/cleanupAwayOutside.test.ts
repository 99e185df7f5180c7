/**
 * Bug 226 with the real CLI: a nested repository's linked worktree outside the agent's, locked and
 * away (its drive not mounted), is named by `paddock cleanup ID --yes`, and `paddock restore ID
 * --to` says what to run once it is back.
 */
import * as assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe('CLI: a locked linked worktree away at the cleanup (bug 226)', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('is named by the cleanup, and restore elsewhere says how to link it once it is back', async () => {
    const started = await runCli(['start', '--json', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const job = JSON.parse(started.stdout) as { id: string; worktree: string };
    await sb.waitEnded(job.id);
    const inner = join(job.worktree, 'inner');
    git(job.worktree, 'init', '-q', '-b', 'main', 'inner');
    writeFileSync(join(inner, 'a.txt'), 'a\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'a');
    const outside = join(sb.root, 'drive', 'outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);
    git(inner, 'worktree', 'lock', outside);
    renameSync(join(sb.root, 'drive'), join(sb.root, 'unmounted'));

    const cleaned = await runCli(['cleanup', job.id, '--yes'], { cwd: sb.repo, env: sb.env, timeoutMs: 60_000 });
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.match(cleaned.stdout, /outside \(on side\), locked and away \(its folder is not there now, as on a drive not mounted\); its git data .* when the folder comes back git fails in it until `paddock restore`/);

    const restored = await runCli(['restore', job.id, '--to', join(sb.root, 'back')], { cwd: sb.repo, env: sb.env, timeoutMs: 60_000 });
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout + restored.stderr, /was locked and away at the cleanup and is still not there: when it comes back/);
  });
});
