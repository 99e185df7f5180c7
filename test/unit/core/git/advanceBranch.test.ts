/**
 * advanceBranch moving a checked-out target: a refusal by git names what it
 * is about (the files in the way), in one sentence, and changes nothing; a
 * fast-forward git stops half-way is put back.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { advanceBranch } from '../../../../src/core/git';
import { firstLine } from '../../../../src/core/git/runGit';
import { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: advanceBranch', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('a refusal because untracked files would be overwritten names them (the first five, then how many more), changing nothing', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    for (let i = 1; i <= 7; i++) write(repo, `f${i}.txt`, `agent ${i}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    for (let i = 1; i <= 7; i++) write(repo, `f${i}.txt`, `mine ${i}\n`);
    const before = treeState(repo);
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'UNTRACKED_IN_THE_WAY');
      assert.match(e.message, /: f1\.txt, f2\.txt, f3\.txt, f4\.txt, f5\.txt and 2 more; move them aside and try again — nothing was changed\.$/);
      assert.equal(e.message.split('\n').length, 1);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), from);
    assertSameState(treeState(repo), before);
    // Should a file appear after that look, git refuses itself: its message keeps the files it is about.
    const refused = spawnSync('git', ['merge', '--ff-only', '--no-overwrite-ignore', to], { cwd: repo, encoding: 'utf8' });
    assert.notEqual(refused.status, 0);
    assert.match(firstLine(refused.stderr), /would be overwritten by merge: f1\.txt, f2\.txt, f3\.txt, f4\.txt, f5\.txt and 2 more$/);
  });

  // Bug 76: a target checked out in two worktrees (`git worktree add --force`) moved in one only, the other
  // left with its index and files behind the branch (its next commit undoing the landing), its changes never looked at.
  it('refuses a target checked out in two worktrees, naming both, with both and the branch as they were', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    write(repo, 'agent.txt', 'agent\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    const second = sb.path('second');
    git(repo, 'worktree', 'add', '-q', '--force', second, 'main');
    write(second, 'README.md', 'the person\'s edit\n');
    const [before, beforeSecond] = [treeState(repo), treeState(second)];
    const statusBefore = [git(repo, 'status', '--porcelain'), git(second, 'status', '--porcelain')];
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_DIRTY');
      assert.match(e.message, /^Branch main is checked out in 2 worktrees \(.+, .+second\); moving it would leave all but one of them behind it — check it out in one only first, nothing was changed\.$/);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), from);
    assertSameState(treeState(repo), before);
    assertSameState(treeState(second), beforeSecond);
    assert.deepEqual([git(repo, 'status', '--porcelain'), git(second, 'status', '--porcelain')], statusBefore, 'both indexes as they were');
  });

  /**
   * `main` and a branch `conflicting` that a rebase of `main` onto it stops on, and an `agent` branch one commit past
   * `main` (`from` → `to`); HEAD detached, so that another worktree can take `main`.
   */
  function conflictingBranches(): { repo: string; from: string; to: string } {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    git(repo, 'checkout', '-q', '-b', 'conflicting');
    write(repo, 'README.md', 'theirs\n');
    git(repo, 'commit', '-q', '-am', 'conflicting');
    git(repo, 'checkout', '-q', 'main');
    write(repo, 'README.md', 'ours\n');
    git(repo, 'commit', '-q', '-am', 'ours');
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    write(repo, 'agent.txt', 'agent\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '--detach');
    return { repo, from, to };
  }

  // Bug 76 too: a rebase of the target stopped in another worktree (HEAD detached there) holds it as git counts it
  // (`git branch -f` refuses it): moved under it, its `rebase --continue` fails at its end ("update_ref failed").
  it('refuses a target checked out in one worktree while a rebase of it is stopped in another', async () => {
    const { repo, from, to } = conflictingBranches();
    const rebasing = sb.path('rebasing');
    git(repo, 'worktree', 'add', '-q', rebasing, 'main');
    assert.notEqual(spawnSync('git', ['rebase', 'conflicting'], { cwd: rebasing }).status, 0, 'the rebase stops on its conflict');
    git(repo, 'checkout', '-q', '--ignore-other-worktrees', 'main');
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_DIRTY');
      assert.match(e.message, /^Branch main is checked out in 2 worktrees \(.+, .+rebasing\);/);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), from);
  });

  // Review of bug 76: a `rebase --update-refs` stopped in another worktree is to move the target at its end, and git counts
  // the target as checked out there (`git branch -f` refuses it); it was moved with one compare-and-swap all the same.
  it('refuses a target that a rebase --update-refs stopped in another worktree is to move', async () => {
    const { repo, from, to } = conflictingBranches();
    const rebasing = sb.path('rebasing');
    git(repo, 'worktree', 'add', '-q', '-b', 'top', rebasing, 'agent');
    assert.notEqual(spawnSync('git', ['rebase', '--update-refs', 'conflicting'], { cwd: rebasing }).status, 0, 'the rebase stops on its conflict');
    assert.notEqual(spawnSync('git', ['branch', '-f', 'main', to], { cwd: repo }).status, 0, 'git counts main as checked out there');
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_DIRTY');
      assert.match(e.message, /^Branch main is checked out in .+rebasing with a rebase in progress;/);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), from);
  });

  // Bug 61: git adds branch.<target>.mergeOptions to the fast-forward's own `git merge`: with --squash
  // there it staged the files and exited 0 with the branch not moved (said landed, the index changed);
  // an unknown option made it fail.
  for (const options of ['--squash', '--no-commit --no-ff', '--no-such-option']) {
    it(`moves a checked-out target whose branch.main.mergeOptions is "${options}" as asked, the index and files with it`, async () => {
      const repo = sb.repo({ 'README.md': 'hello\n' });
      const from = git(repo, 'rev-parse', 'main');
      git(repo, 'checkout', '-q', '-b', 'agent');
      write(repo, 'agent.txt', 'agent\n');
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', 'agent');
      const to = git(repo, 'rev-parse', 'HEAD');
      git(repo, 'checkout', '-q', 'main');
      git(repo, 'config', 'branch.main.mergeOptions', options);
      await advanceBranch(repo, 'main', from, to, 'test');
      assert.equal(git(repo, 'rev-parse', 'main'), to);
      assert.equal(git(repo, 'status', '--porcelain'), '');
      assert.equal(readFileSync(join(repo, 'agent.txt'), 'utf8'), 'agent\n');
    });
  }

  it('a fast-forward git stops half-way (a required smudge filter whose program is missing) is put back: files, index and branch as before (bug 55)', async () => {
    // As git-lfs (`git lfs install`) or git-crypt leave a repository: a required filter, here with its program gone.
    const repo = sb.repo({ 'README.md': 'hello\n', 'old.txt': 'old\n', '.gitattributes': '*.bin filter=crypt\n' });
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    write(repo, 'README.md', 'changed by the agent\n');
    write(repo, 'a.txt', 'new\n');
    write(repo, 'dir/new.txt', 'new in a new folder\n');
    write(repo, 'z.bin', 'secret\n');
    git(repo, 'rm', '-q', 'old.txt');
    git(repo, '-c', 'filter.crypt.clean=cat', 'add', '-A');
    git(repo, '-c', 'filter.crypt.clean=cat', 'commit', '-q', '-m', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'config', 'filter.crypt.smudge', 'paddock-no-such-filter-program %f');
    git(repo, 'config', 'filter.crypt.required', 'true');
    write(repo, 'notes.txt', 'the person\'s untracked file\n');
    const before = treeState(repo);
    const index = readFileSync(join(repo, '.git', 'index'));
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_REFUSED');
      assert.match(e.message, /^Could not move main in .*; nothing was changed\.$/);
      assert.equal(e.message.split('\n').length, 1);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), from);
    assertSameState(treeState(repo), before);
    assert.deepEqual(readFileSync(join(repo, '.git', 'index')), index);
    assert.equal(git(repo, 'status', '--porcelain'), '?? notes.txt');
  });

  it("a fast-forward whose branch update the repository's reference-transaction hook refuses, after git wrote the files and the index, is put back; a branch checked out nowhere is not said to have moved (bug 55)", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 'd/old.txt': 'old\n' });
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    write(repo, 'README.md', 'changed by the agent\n');
    write(repo, 'n/new.txt', 'new in a new folder\n');
    git(repo, 'rm', '-q', 'd/old.txt');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    // git 2.28+: the hook may refuse a ref update in its prepared state; `git merge --ff-only` has written the files and the index by then.
    git(repo, 'branch', 'other', from);
    write(repo, '.git/hooks/reference-transaction', '#!/bin/sh\n[ "$1" = prepared ] && grep -q refs/heads/ && exit 1\nexit 0\n');
    chmodSync(join(repo, '.git/hooks/reference-transaction'), 0o755);
    write(repo, 'notes.txt', "the person's untracked file\n");
    const before = treeState(repo);
    const staged = git(repo, 'ls-files', '--stage');
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_REFUSED');
      assert.match(e.message, /^Could not move main in .*: ref updates aborted by hook; nothing was changed\.$/);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), from);
    assertSameState(treeState(repo), before);
    assert.equal(git(repo, 'ls-files', '--stage'), staged);
    assert.equal(git(repo, 'status', '--porcelain'), '?? notes.txt');
    // Checked out nowhere, the same refusal is said as it is: nobody moved the branch.
    await assert.rejects(advanceBranch(repo, 'other', from, to, 'test'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_REFUSED');
      assert.equal(e.message, 'Could not move other: ref updates aborted by hook; nothing was changed.');
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'other'), from);
  });

  // Bug 97's `--ignore-submodules=none` in the put-back's index check (applyUndo), which had no test:
  // under submodule.sub.ignore=all a fast-forward that moves only a submodule, refused by the hook
  // once git had written the index, left the agent's submodule commit staged in the person's index.
  it('a refused fast-forward that moves only a submodule, under submodule.sub.ignore=all, leaves the index as it was', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', '.gitmodules': '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n' });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`);
    git(repo, 'commit', '-q', '-m', 'submodule');
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    git(repo, 'update-index', '--cacheinfo', `160000,${'2'.repeat(40)},sub`);
    git(repo, 'commit', '-q', '-m', 'agent moves sub');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'config', 'submodule.sub.ignore', 'all');
    write(repo, '.git/hooks/reference-transaction', '#!/bin/sh\n[ "$1" = prepared ] && grep -q refs/heads/ && exit 1\nexit 0\n');
    chmodSync(join(repo, '.git/hooks/reference-transaction'), 0o755);
    const staged = git(repo, 'ls-files', '--stage');
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => e.code === 'TARGET_REFUSED');
    assert.equal(git(repo, 'rev-parse', 'main'), from);
    assert.equal(git(repo, 'ls-files', '--stage'), staged, "the agent's submodule commit is not left staged");
  });

  it("a fast-forward whose git is killed after the move (in the person's post-merge hook, as runGit's time limit kills a hook that hangs) has landed and says so (bug 55)", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    write(repo, 'README.md', 'changed by the agent\n');
    write(repo, 'n/new.txt', 'new in a new folder\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    write(repo, '.git/hooks/post-merge', '#!/bin/sh\nkill -9 $PPID\n');
    chmodSync(join(repo, '.git/hooks/post-merge'), 0o755);
    await advanceBranch(repo, 'main', from, to, 'test');
    assert.equal(git(repo, 'rev-parse', 'main'), to);
    assert.equal(readFileSync(join(repo, 'n/new.txt'), 'utf8'), 'new in a new folder\n');
    assert.equal(git(repo, 'status', '--porcelain'), '');
  });

  it("a fast-forward refused before any write (the index locked by another git) is not put back over the person's files (bug 55)", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const from = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'agent');
    write(repo, 'README.md', 'changed by the agent\n');
    git(repo, 'commit', '-q', '-am', 'agent');
    const to = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(join(repo, 'README.md'), old, old);
    write(repo, '.git/index.lock', '');
    await assert.rejects(advanceBranch(repo, 'main', from, to, 'test'), (e: PaddockError) => {
      assert.match(e.message, /^Could not move main in .*: Unable to create '.*index\.lock': File exists; nothing was changed\.$/);
      return true;
    });
    assert.equal(statSync(join(repo, 'README.md')).mtimeMs, old.getTime(), 'README.md was not written again');
    assert.equal(git(repo, 'rev-parse', 'main'), from);
  });
});
