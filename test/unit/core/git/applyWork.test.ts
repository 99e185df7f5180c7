/**
 * Apply to Workspace and Update from Base in real repositories: an agent's
 * commits plus its uncommitted and untracked work arrive as uncommitted
 * changes; an overlap with the person's local changes is refused with the
 * list and changes nothing; a base brought into the agent's worktree with a
 * conflict stops there, listing the files, for resolving in place.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyCommitToWorktree, LandingConflict, updateFromBase, worktreeStateCommit } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
import { binary, git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: apply and update', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  function setup() {
    const repo = sb.repo({ 'README.md': 'hello\n', 'shared.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, 'committed.txt', 'committed\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent commit');
    // Uncommitted: a modified tracked file, a deletion, an untracked text file and a binary.
    write(wt, 'shared.txt', 'one\nAGENT\nthree\n');
    git(wt, 'rm', '-q', 'gone.txt');
    write(wt, 'new/untracked.txt', 'fresh\n');
    write(wt, 'blob.bin', binary(4096, 7));
    return { repo, wt };
  }

  it('applies commits and uncommitted work as uncommitted changes, HEAD and the agent worktree untouched', async () => {
    const { repo, wt } = setup();
    write(repo, 'README.md', 'a local edit elsewhere\n'); // not touched by the agent: allowed
    const head = git(repo, 'rev-parse', 'HEAD');
    const agentBefore = treeState(wt);
    const agentStatus = git(wt, 'status', '--porcelain');
    const state = await worktreeStateCommit(wt, 'state');
    const files = await applyCommitToWorktree(repo, state, 'Agent work');
    assert.deepEqual(files.sort(), ['blob.bin', 'committed.txt', 'gone.txt', 'new/untracked.txt', 'shared.txt']);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'nothing committed');
    assert.equal(readFileSync(path.join(repo, 'shared.txt'), 'utf8'), 'one\nAGENT\nthree\n');
    assert.ok(!existsSync(path.join(repo, 'gone.txt')));
    assert.deepEqual(readFileSync(path.join(repo, 'blob.bin')), binary(4096, 7));
    assert.equal(readFileSync(path.join(repo, 'README.md'), 'utf8'), 'a local edit elsewhere\n', 'the local edit is kept');
    const status = git(repo, 'status', '--porcelain').split('\n').map((l) => l.trim()).sort();
    assert.deepEqual(status, ['D gone.txt', 'M README.md', 'M shared.txt', '?? blob.bin', '?? committed.txt', '?? new/'].sort(), 'all unstaged, untracked new files');
    assertSameState(treeState(wt), agentBefore);
    assert.equal(git(wt, 'status', '--porcelain'), agentStatus, "the agent's index is untouched");
  });

  it('refuses a main worktree where a merge, a rebase or a cherry-pick stopped half-way, changing nothing (bug 55)', async () => {
    for (const stop of ['merge', 'rebase', 'cherry-pick'] as const) {
      const repo = sb.repo({ 'README.md': 'hello\n', 'other.txt': 'other\n' }, `repo-${stop}`);
      const wt = sb.path(`agent-wt-${stop}`);
      git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
      write(wt, 'other.txt', 'changed by the agent\n');
      git(wt, 'commit', '-q', '-am', 'agent');
      // The person's own work stops on a conflict in README.md, a file the agent does not touch.
      git(repo, 'checkout', '-q', '-b', 'side');
      write(repo, 'README.md', 'side\n');
      git(repo, 'commit', '-q', '-am', 'side');
      git(repo, 'checkout', '-q', 'main');
      write(repo, 'README.md', 'main\n');
      git(repo, 'commit', '-q', '-am', 'main');
      spawnSync('git', stop === 'rebase' ? ['rebase', 'side'] : [stop, 'side'], { cwd: repo });
      assert.match(git(repo, 'status', '--porcelain'), /^UU README\.md$/m, stop);
      const before = { files: treeState(repo), index: readFileSync(path.join(repo, '.git', 'index')).toString('base64') };
      await assert.rejects(applyCommitToWorktree(repo, git(wt, 'rev-parse', 'HEAD'), 'Agent work'), (e: PaddockError) => {
        const doing = stop === 'merge' ? 'a merge' : stop === 'rebase' ? 'a rebase' : 'a cherry-pick';
        assert.equal(e.message, `${repo} has ${doing} in progress; finish or abort it there first — nothing was changed.`);
        return true;
      });
      assertSameState(treeState(repo), before.files);
      assert.equal(readFileSync(path.join(repo, '.git', 'index')).toString('base64'), before.index);
    }
  });

  it('refuses, listing the files, when it would overwrite local changes (tracked or untracked), changing nothing', async () => {
    const { repo, wt } = setup();
    write(repo, 'shared.txt', 'the person edits this too\n');
    write(repo, 'committed.txt', 'an untracked file of the same name\n');
    const before = { files: treeState(repo), index: readFileSync(path.join(repo, '.git', 'index')).toString('base64') };
    const state = await worktreeStateCommit(wt, 'state');
    await assert.rejects(applyCommitToWorktree(repo, state, 'Agent work'), (e: PaddockError) => {
      assert.equal(e.code, 'LOCAL_CHANGES');
      assert.match(e.message, /committed\.txt, shared\.txt|shared\.txt, committed\.txt/);
      assert.match(e.message, /nothing was changed/);
      return true;
    });
    assertSameState(treeState(repo), before.files);
    assert.equal(readFileSync(path.join(repo, '.git', 'index')).toString('base64'), before.index);
  });

  it('refuses a three-way conflict with what is checked out, changing nothing', async () => {
    const { repo, wt } = setup();
    write(repo, 'shared.txt', 'one\nMAIN\nthree\n');
    git(repo, 'commit', '-q', '-am', 'main edits shared');
    const before = treeState(repo);
    const state = await worktreeStateCommit(wt, 'state');
    await assert.rejects(applyCommitToWorktree(repo, state, 'Agent work'), (e: unknown) => e instanceof LandingConflict && e.files.includes('shared.txt'));
    assertSameState(treeState(repo), before);
  });

  it('update merges the base into the agent branch; a conflict stops in the worktree with the files listed', async () => {
    const { repo, wt } = setup();
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent rest');
    write(repo, 'base-only.txt', 'b\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base adds a file');
    const clean = await updateFromBase(wt, git(repo, 'rev-parse', 'main'), 'main', { rebase: false });
    assert.equal(clean.updated, true);
    assert.ok(existsSync(path.join(wt, 'base-only.txt')));
    assert.equal((await updateFromBase(wt, git(repo, 'rev-parse', 'main'), 'main', { rebase: false })).updated, false, 'already up to date');

    write(repo, 'shared.txt', 'one\nMAIN\nthree\n');
    git(repo, 'commit', '-q', '-am', 'base edits shared');
    await assert.rejects(updateFromBase(wt, git(repo, 'rev-parse', 'main'), 'main', { rebase: false }), (e: unknown) => {
      assert.ok(e instanceof LandingConflict);
      assert.deepEqual(e.files, ['shared.txt']);
      assert.match(e.message, /git merge --continue/);
      return true;
    });
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir');
    assert.ok(existsSync(path.join(gitDir, 'MERGE_HEAD')), 'the merge waits in the worktree to be resolved');
    assert.match(readFileSync(path.join(wt, 'shared.txt'), 'utf8'), /<<<<<<<[\s\S]*AGENT[\s\S]*MAIN/);
  });

  it('update refuses a worktree with uncommitted changes', async () => {
    const { repo, wt } = setup();
    const before = treeState(wt);
    await assert.rejects(updateFromBase(wt, git(repo, 'rev-parse', 'main'), 'main', { rebase: true }), (e: PaddockError) => e.code === 'UNCOMMITTED');
    assertSameState(treeState(wt), before);
  });
});
