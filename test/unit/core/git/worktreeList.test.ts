import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { listWorktrees, listWorktreesFromFiles, parseWorktreeList } from '../../../../src/core/git/worktreeList';
import { Sandbox, useGitSandbox, git } from './gitTestUtil';

describe('git/worktreeList', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
  });

  const gitsList = (dir: string) => parseWorktreeList(git(dir, 'worktree', 'list', '--porcelain', '-z')).entries;

  it("reads git's own list from its files: a branch, a folder reached through a symlink, detached, locked, a folder gone, a detached main", async () => {
    assert.deepEqual(await listWorktreesFromFiles(repo), gitsList(repo), 'the main worktree alone');
    mkdirSync(sb.path('real'));
    symlinkSync(sb.path('real'), sb.path('link'));
    git(repo, 'worktree', 'add', '-q', '-b', 'on-branch', sb.path('link', 'w-one'));
    git(repo, 'worktree', 'add', '-q', '--detach', sb.path('w-detached'));
    git(repo, 'worktree', 'lock', '--reason', 'kept', sb.path('w-detached'));
    git(repo, 'worktree', 'add', '-q', '-b', 'gone', sb.path('a-gone'));
    rmSync(sb.path('a-gone'), { recursive: true, force: true });
    const expected = gitsList(repo);
    assert.equal(expected.length, 4);
    assert.deepEqual(await listWorktreesFromFiles(repo), expected);
    assert.deepEqual(await listWorktrees(repo), expected);
    git(repo, 'checkout', '-q', '--detach');
    assert.deepEqual(await listWorktreesFromFiles(repo), gitsList(repo), 'the main worktree detached');
  });

  it('leaves to git a list it cannot read plainly (from a linked worktree, a relative gitdir), and gives the same answer', async () => {
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'x', wt);
    assert.equal(await listWorktreesFromFiles(wt), undefined, 'asked from a linked worktree');
    assert.deepEqual(await listWorktrees(wt), gitsList(repo));
    // A registration git wrote with a relative path (newer git's worktree.useRelativePaths).
    const admin = path.join(repo, '.git', 'worktrees', 'wt', 'gitdir');
    writeFileSync(admin, '../../../wt/.git\n');
    assert.equal(await listWorktreesFromFiles(repo), undefined, 'a relative gitdir');
  });
});
