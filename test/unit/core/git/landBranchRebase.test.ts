/**
 * Rebase landings (landBranch's temporary worktree) and Update from Base's
 * rebase: the repository's settings do not make them reach other branches,
 * and no change the agent's branch carries is dropped.
 */
import * as assert from 'node:assert/strict';
import { landBranch, updateFromBase } from '../../../../src/core/git';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: rebase landings and rebase updates', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** A repo on main and an agent worktree on paddock/agent with two commits, `stack` (another branch) at the first; then main moves. */
  function setup() {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    for (const name of ['one', 'two']) {
      write(wt, `${name}.txt`, `${name}\n`);
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', name);
    }
    git(repo, 'branch', 'stack', 'paddock/agent~1');
    write(repo, 'base.txt', 'base\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'main moves');
    return { repo, wt, tip: git(wt, 'rev-parse', 'HEAD'), stack: git(repo, 'rev-parse', 'stack'), base: git(repo, 'rev-parse', 'main') };
  }

  it('rebase.updateRefs=true does not make a rebase landing move the branches that point into the agent commits', async () => {
    const { repo, tip, stack } = setup();
    git(repo, 'config', 'rebase.updateRefs', 'true');
    const res = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'rebase', message: 'Land\n', scratchRoot: sb.path('scratch') });
    assert.equal(res.kind, 'rebase');
    assert.equal(git(repo, 'rev-parse', 'stack'), stack, 'stack not moved');
    assert.equal(git(repo, 'rev-parse', 'paddock/agent'), tip);
  });

  it('rebase.updateRefs=true does not make a rebase update move the branches that point into the agent commits', async () => {
    const { repo, wt, base, stack } = setup();
    git(repo, 'config', 'rebase.updateRefs', 'true');
    const res = await updateFromBase(wt, base, 'main', { rebase: true });
    assert.equal(res.updated, true);
    assert.equal(git(wt, 'rev-parse', 'HEAD~2'), base);
    assert.equal(git(repo, 'rev-parse', 'stack'), stack, 'stack not moved');
  });
});
