import * as assert from 'node:assert/strict';
import { realpathSync, rmSync } from 'node:fs';
import { BranchCheckedOut, branchSafety, deleteBranch } from '../../../../src/core/git/branch';
import { Sandbox, useGitSandbox, git, write } from './gitTestUtil';

describe('git/branchSafety and deleteBranch', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo();
  });

  /** A branch `name` off main with `n` commits of its own. */
  function branchWith(name: string, n: number): string {
    git(repo, 'branch', name, 'main');
    const wt = sb.path('wt', name.replace(/\//g, '_'));
    git(repo, 'worktree', 'add', '-q', wt, name);
    for (let i = 0; i < n; i++) {
      write(wt, `${name.replace(/\//g, '_')}-${i}.txt`, `${i}\n`);
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', `commit ${i}`);
    }
    git(repo, 'worktree', 'remove', '--force', wt);
    return git(repo, 'rev-parse', name);
  }

  it('counts commits that no other branch, remote or tag reaches', async () => {
    branchWith('paddock/a', 3);
    assert.deepEqual(await branchSafety(repo, 'paddock/a'), { exists: true, unmergedCommits: 3 });
  });

  it('ignores paddock snapshot refs (they do not make a branch safe)', async () => {
    const tip = branchWith('paddock/snap', 2);
    git(repo, 'update-ref', 'refs/paddock/snapshots/snap', tip);
    assert.equal((await branchSafety(repo, 'paddock/snap')).unmergedCommits, 2);
  });

  it('is safe when merged into main, or reachable from a remote-tracking branch, a tag or an extra rev', async () => {
    const merged = branchWith('paddock/merged', 2);
    git(repo, 'merge', '-q', '--no-ff', '-m', 'merge', merged);
    assert.equal((await branchSafety(repo, 'paddock/merged')).unmergedCommits, 0);

    const remote = branchWith('paddock/remote', 1);
    git(repo, 'update-ref', 'refs/remotes/origin/paddock/remote', remote);
    assert.equal((await branchSafety(repo, 'paddock/remote')).unmergedCommits, 0);

    const tagged = branchWith('paddock/tagged', 1);
    git(repo, 'tag', '-a', '-m', 'annotated', 'v1', tagged);
    assert.equal((await branchSafety(repo, 'paddock/tagged')).unmergedCommits, 0);

    const extra = branchWith('paddock/extra', 2);
    assert.equal((await branchSafety(repo, 'paddock/extra')).unmergedCommits, 2);
    assert.equal((await branchSafety(repo, 'paddock/extra', { alsoReachableFrom: [extra] })).unmergedCommits, 0);
  });

  it('has no unmerged commits when it has no commits of its own', async () => {
    git(repo, 'branch', 'paddock/empty', 'main');
    assert.deepEqual(await branchSafety(repo, 'paddock/empty'), { exists: true, unmergedCommits: 0 });
  });

  it('reports a missing branch', async () => {
    assert.deepEqual(await branchSafety(repo, 'paddock/none'), { exists: false, unmergedCommits: 0 });
  });

  it('deleteBranch keeps unmerged work unless forced', async () => {
    branchWith('paddock/keep', 3);
    await assert.rejects(deleteBranch(repo, 'paddock/keep', { force: false }), /kept: 3 commits not merged/);
    assert.notEqual(git(repo, 'branch', '--list', 'paddock/keep'), '');
    await deleteBranch(repo, 'paddock/keep', { force: true });
    assert.equal(git(repo, 'branch', '--list', 'paddock/keep'), '');
  });

  it('deleteBranch deletes a merged branch without force, and a missing one is fine', async () => {
    const tip = branchWith('paddock/done', 1);
    git(repo, 'merge', '-q', '--ff-only', tip);
    await deleteBranch(repo, 'paddock/done', { force: false });
    assert.equal(git(repo, 'branch', '--list', 'paddock/done'), '');
    await deleteBranch(repo, 'paddock/done', { force: false });
  });

  it('deleteBranch refuses a branch checked out in a live worktree', async () => {
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/live', sb.path('live'), 'main');
    await assert.rejects(deleteBranch(repo, 'paddock/live', { force: true }), /Could not delete branch paddock\/live/);
  });

  it('deleteBranch says which worktree has the branch checked out, also one whose folder is gone', async () => {
    const live = sb.path('live');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/live', live, 'main');
    const refusal = (err: unknown, at: string) => err instanceof BranchCheckedOut && err.at === at;
    await assert.rejects(deleteBranch(repo, 'paddock/live', { force: true }), (err) => refusal(err, realpathSync(live)));
    git(repo, 'checkout', '-q', '--ignore-other-worktrees', 'paddock/live');
    git(repo, 'worktree', 'remove', '--force', live);
    await assert.rejects(deleteBranch(repo, 'paddock/live', { force: true }), (err) => refusal(err, realpathSync(repo)));
    // Another worktree's registration whose folder is gone is not forgotten: only the agent's own (`worktree`) is.
    git(repo, 'checkout', '-q', 'main');
    const away = sb.path('away');
    git(repo, 'worktree', 'add', '-q', away, 'paddock/live');
    const where = realpathSync(away);
    rmSync(away, { recursive: true, force: true });
    await assert.rejects(deleteBranch(repo, 'paddock/live', { force: true, worktree: sb.path('agent') }), (err) => refusal(err, where));
    assert.notEqual(git(repo, 'branch', '--list', 'paddock/live'), '');
  });
});
