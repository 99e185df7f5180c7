/**
 * Bringing the base into an agent's worktree (merge or rebase) in real
 * repositories, whatever the repository's settings say about merges and
 * rebases; a merge or rebase git stops half-way leaves the worktree as it was.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { updateFromBase } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: updateFromBase', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** A repo on main and an agent worktree on paddock/agent; `agentCommits` commits there, then main moves. */
  function setup(agentCommits: number) {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    for (let i = 1; i <= agentCommits; i++) {
      write(wt, `agent${i}.txt`, `agent ${i}\n`);
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', `agent ${i}`);
    }
    write(repo, 'base.txt', 'base\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'main moves');
    return { repo, wt, base: git(repo, 'rev-parse', 'main') };
  }

  it('merge.ff=only does not refuse the merge of a base the agent has diverged from', async () => {
    const { repo, wt, base } = setup(1);
    git(repo, 'config', 'merge.ff', 'only');
    const res = await updateFromBase(wt, base, 'main', { rebase: false });
    assert.equal(res.updated, true);
    assert.equal(git(wt, 'rev-list', '--parents', '-n1', 'HEAD').split(' ').length, 3, 'a merge commit');
    assert.equal(git(wt, 'symbolic-ref', '--short', 'HEAD'), 'paddock/agent');
    assert.equal(git(wt, 'status', '--porcelain'), '');
  });

  it("merge.ff=false and the branch's mergeOptions (--squash --no-commit) do not change it: an agent with no commits of its own is fast-forwarded", async () => {
    const { repo, wt, base } = setup(0);
    git(repo, 'config', 'merge.ff', 'false');
    git(repo, 'config', 'branch.paddock/agent.mergeOptions', '--squash --no-commit');
    const res = await updateFromBase(wt, base, 'main', { rebase: false });
    assert.deepEqual(res, { updated: true, head: base });
    assert.equal(git(wt, 'rev-parse', 'refs/heads/paddock/agent'), base);
    assert.equal(git(wt, 'status', '--porcelain'), '');
  });

  for (const rebase of [false, true]) {
    // 0 commits of the agent's own: a fast-forward; 2: a true merge, or a replay of two commits.
    for (const agentCommits of [0, 2]) {
      it(`a ${rebase ? 'rebase' : 'merge'} git stops half-way (a required smudge filter whose program is missing) leaves the agent's worktree, index and branch as they were, ${agentCommits} agent commits (bug 55)`, async () => {
        const { repo, wt } = setup(agentCommits);
        // As git-lfs (`git lfs install`) or git-crypt leave a repository: a required filter, here with its program gone.
        write(repo, '.gitattributes', '*.bin filter=crypt\n');
        write(repo, 'README.md', 'changed on main\n');
        write(repo, 'dir/new.txt', 'new in a new folder\n');
        write(repo, 'z.bin', 'secret\n');
        git(repo, '-c', 'filter.crypt.clean=cat', 'add', '-A');
        git(repo, '-c', 'filter.crypt.clean=cat', 'commit', '-q', '-m', 'main adds a filtered file');
        const base = git(repo, 'rev-parse', 'main');
        git(repo, 'config', 'filter.crypt.smudge', 'paddock-no-such-filter-program %f');
        git(repo, 'config', 'filter.crypt.required', 'true');
        write(wt, 'notes.txt', "the agent's untracked file\n");
        const head = git(wt, 'rev-parse', 'HEAD');
        const before = treeState(wt);
        const staged = git(wt, 'ls-files', '--stage');
        await assert.rejects(updateFromBase(wt, base, 'main', { rebase }), (e: PaddockError) => {
          assert.match(e.message, /failed in .*; nothing was changed\.$/);
          assert.equal(e.message.split('\n').length, 1);
          return true;
        });
        assert.equal(git(wt, 'rev-parse', 'HEAD'), head);
        assert.equal(git(wt, 'symbolic-ref', '--short', 'HEAD'), 'paddock/agent');
        assertSameState(treeState(wt), before);
        assert.equal(git(wt, 'ls-files', '--stage'), staged);
        assert.equal(git(wt, 'status', '--porcelain'), '?? notes.txt');
      });
    }
  }

  // 0 commits of the agent's own: a fast-forward; 1: a merge commit (git has not yet removed MERGE_HEAD when the hook runs).
  for (const agentCommits of [0, 1]) {
    it(`a merge whose git is killed after it moved the branch (in the person's post-merge hook, as runGit's time limit kills a hook that hangs) has updated it and says so, ${agentCommits} agent commits (bug 55)`, async () => {
      const { repo, wt, base } = setup(agentCommits);
      write(repo, '.git/hooks/post-merge', '#!/bin/sh\nkill -9 $PPID\n');
      chmodSync(`${repo}/.git/hooks/post-merge`, 0o755);
      const res = await updateFromBase(wt, base, 'main', { rebase: false });
      assert.equal(res.updated, true);
      assert.equal(res.head, git(wt, 'rev-parse', 'HEAD'));
      assert.equal(git(wt, 'symbolic-ref', '--short', 'HEAD'), 'paddock/agent');
      assert.equal(git(wt, 'merge-base', '--is-ancestor', base, 'HEAD'), '');
      assert.equal(git(wt, 'status', '--porcelain'), '');
      assert.equal(spawnSync('git', ['rev-parse', '--verify', '-q', 'MERGE_HEAD'], { cwd: wt }).status, 1, 'no merge left in progress');
    });
  }
});
