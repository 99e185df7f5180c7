/**
 * Rebase landings (landBranch's temporary worktree) and Update from Base's
 * rebase: the repository's settings do not make them reach other branches,
 * and no change the agent's branch carries is dropped.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { landBranch, updateFromBase } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
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

  /** setup(), then a merge commit on the agent's branch that adds evil.txt of its own (no side commit has it). */
  function withEvilMerge() {
    const s = setup();
    git(s.wt, 'checkout', '-q', '-b', 'side', 'paddock/agent~2');
    write(s.wt, 'side.txt', 'side\n');
    git(s.wt, 'add', '-A');
    git(s.wt, 'commit', '-q', '-m', 'side');
    git(s.wt, 'checkout', '-q', 'paddock/agent');
    git(s.wt, 'merge', '-q', '--no-ff', '--no-commit', 'side');
    write(s.wt, 'evil.txt', 'made in the merge\n');
    git(s.wt, 'add', '-A');
    git(s.wt, 'commit', '-q', '-m', 'merge side');
    return { ...s, tip: git(s.wt, 'rev-parse', 'HEAD') };
  }

  it("refuses a rebase landing of a branch with a merge commit (its changes would be dropped), changing nothing", async () => {
    const { repo, tip, base } = withEvilMerge();
    await assert.rejects(
      landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'rebase', message: 'Land\n', scratchRoot: sb.path('scratch') }),
      (e: PaddockError) => {
        assert.equal(e.code, 'REBASE_MERGES');
        assert.match(e.message, /^paddock\/agent has 1 merge commit, whose changes a rebase would drop; nothing was changed \(merge or squash instead\)\.$/);
        return true;
      },
    );
    assert.equal(git(repo, 'rev-parse', 'main'), base, 'main not moved');
    const merged = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'merge', message: 'Land\n', scratchRoot: sb.path('scratch') });
    assert.equal(git(repo, 'show', `${merged.commit}:evil.txt`), 'made in the merge', 'a merge lands it');
  });

  it("refuses a rebase update of a branch with a merge commit: the merge's changes stay on the branch and on disk", async () => {
    const { wt, tip, base } = withEvilMerge();
    await assert.rejects(updateFromBase(wt, base, 'main', { rebase: true }), (e: PaddockError) => e.code === 'REBASE_MERGES' && /update without --rebase/.test(e.message));
    assert.equal(git(wt, 'rev-parse', 'HEAD'), tip);
    assert.equal(git(wt, 'symbolic-ref', '--short', 'HEAD'), 'paddock/agent');
    assert.ok(existsSync(path.join(wt, 'evil.txt')));
    assert.equal(git(wt, 'status', '--porcelain'), '');
  });

  it('refuses a rebase landing whose result differs from what a merge would land (a commit dropped as already upstream, its revert kept)', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 'f.txt': 'x\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    for (const [file, content] of [['f.txt', 'y\n'], ['f.txt', 'x\n'], ['g.txt', 'g\n']]) {
      write(wt, file, content);
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', `${file} ${content.trim()}`);
    }
    git(repo, 'cherry-pick', '-x', 'paddock/agent~2');
    const base = git(repo, 'rev-parse', 'main');
    const tip = git(wt, 'rev-parse', 'HEAD');
    await assert.rejects(
      landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'rebase', message: 'Land\n', scratchRoot: sb.path('scratch') }),
      (e: PaddockError) => e.code === 'REBASE_DIFFERS',
    );
    assert.equal(git(repo, 'rev-parse', 'main'), base, 'main not moved');
  });
});
