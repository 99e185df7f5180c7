/**
 * Merge into Base reads git's merge settings as `git merge` reads them with the target checked out
 * (bug 75): an `includeIf "onbranch:…"` is judged against the target, not the main worktree's
 * HEAD — where the target is checked out in a linked worktree (its `config.worktree` read too),
 * and where it is checked out nowhere.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { PaddockError } from '../../../../src/core/common/errors';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

describe('merge: git settings as git merge reads them for the target', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const parents = (commit: string): string[] => git(sb.repo, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);

  it("an includeIf onbranch: the target's (merge.ff=false: a merge commit), not the main worktree's branch's", async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm "agent a"'], title: 'adds a' });
    const a = await sb.waitEnded(job.id);
    const base = git(sb.repo, 'rev-parse', 'main');
    const included = join(sb.home, 'release.gitconfig');
    writeFileSync(included, '[merge]\n\tff = false\n');
    git(sb.repo, 'config', 'includeIf.onbranch:release/*.path', included);
    git(sb.repo, 'branch', 'release/one', base);
    // What git merge does with release/one checked out: a merge commit where a fast-forward would do.
    const probe = join(sb.home, 'probe');
    git(sb.repo, 'worktree', 'add', '-q', probe, 'release/one');
    execFileSync('git', ['merge', '-q', '--no-edit', a.branch!], { cwd: probe, stdio: 'ignore', env: { ...process.env, ...IDENTITY } });
    assert.equal(parents(git(probe, 'rev-parse', 'HEAD')).length, 2, 'git merge there makes a merge commit');
    git(probe, 'reset', '-q', '--hard', base);

    // Checked out in a linked worktree: read there.
    const inWorktree = await c.merge(a.id, { into: 'release/one' });
    assert.equal(inWorktree.kind, 'merge');
    assert.deepEqual(parents(inWorktree.commit), [base, git(sb.repo, 'rev-parse', a.branch!)]);
    assert.ok(existsSync(join(probe, 'a.txt')), 'the worktree was moved with it');
    // Its folder gone: refused in the landing's own sentence, not the config read's.
    rmSync(probe, { recursive: true, force: true });
    git(sb.repo, 'update-ref', 'refs/heads/release/one', base);
    await assert.rejects(c.merge(a.id, { into: 'release/one' }), (e: PaddockError) => e.code === 'TARGET_DIRTY' && /a worktree whose folder is gone/.test(e.message));
    git(sb.repo, 'worktree', 'prune');

    // Checked out nowhere: judged for the target all the same, and nothing is left of the look.
    git(sb.repo, 'branch', 'release/two', base);
    const nowhere = await c.merge(a.id, { into: 'release/two' });
    assert.equal(nowhere.kind, 'merge');
    assert.deepEqual(parents(nowhere.commit), [base, git(sb.repo, 'rev-parse', a.branch!)]);
    assert.equal(git(sb.repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length, 2, 'the main worktree and the agent\'s');

    // The main worktree's own branch is not the target's: main still fast-forwards.
    assert.equal((await c.merge(a.id)).kind, 'ff');
  });
});
