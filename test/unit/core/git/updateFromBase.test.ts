/**
 * Bringing the base into an agent's worktree (merge or rebase) in real
 * repositories, whatever the repository's settings say about merges and
 * rebases.
 */
import * as assert from 'node:assert/strict';
import { updateFromBase } from '../../../../src/core/git';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

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
});
