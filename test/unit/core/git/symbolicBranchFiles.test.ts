/**
 * A HEAD read from git's files names, for a branch that is a symbolic ref, the branch it ends at, as
 * git reads it (bug 119, second review): `git worktree list` and `git symbolic-ref HEAD` say main for
 * a HEAD naming alias (alias → main). The readers of HEAD files said alias: a landing on main missed
 * the worktree (symbolicBranchWorktree.test.ts), and an inner worktree's commit read as unreadable.
 */
import * as assert from 'node:assert/strict';
import { currentBranch } from '../../../../src/core/git/checkout';
import { readHeadFromFiles } from '../../../../src/core/git/headFiles';
import { registeredInside } from '../../../../src/core/git/innerWorktrees';
import { Sandbox, useGitSandbox, git } from './gitTestUtil';

describe('git: a HEAD naming a symbolic branch, read from files', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    git(repo, 'symbolic-ref', 'refs/heads/alias2', 'refs/heads/alias');
  });

  it('the branch and commit of a HEAD naming a chain of symbolic refs are where git says', async () => {
    git(repo, 'switch', '-q', 'alias2');
    const main = git(repo, 'rev-parse', 'main');
    assert.equal(git(repo, 'symbolic-ref', 'HEAD'), 'refs/heads/main');
    assert.equal(await currentBranch(repo), 'main');
    assert.deepEqual(await readHeadFromFiles(repo), { head: main, gitDir: `${repo}/.git`, ref: 'refs/heads/main' });
  });

  it("an inner worktree on alias: its commit and branch are main's", async () => {
    git(repo, 'switch', '-q', '-c', 'other');
    const outer = sb.path('outer');
    git(repo, 'worktree', 'add', '-q', '--detach', outer);
    git(repo, 'worktree', 'add', '-q', `${outer}/inner`, 'alias');
    const found = await registeredInside(`${repo}/.git`, outer);
    assert.deepEqual(found.map((w) => [w.path, w.head, w.branch]), [['inner', git(repo, 'rev-parse', 'main'), 'main']]);
  });
});
