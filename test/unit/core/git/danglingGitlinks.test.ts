/**
 * A repository the agent made inside its worktree (`git init sub`, files committed in there) is
 * never landed as a bare gitlink with no `.gitmodules`, whose files would never arrive: Apply to
 * Workspace and committing the uncommitted work before a landing refuse, naming it, and change
 * nothing.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyCommitToWorktree, commitAllWork, worktreeStateCommit } from '../../../../src/core/git';
import { landBranch, type LandStrategy } from '../../../../src/core/git/landBranch';
import type { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: a nested repository is never landed as a bare gitlink', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** The agent's worktree with `sub/`, a repository of its own with a commit, and a plain new file beside it. */
  function setup(name = 'repo') {
    const repo = sb.repo({ 'README.md': 'hello\n' }, name);
    const wt = sb.path(`agent-wt-${name}`);
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    const sub = path.join(wt, 'sub');
    git(wt, 'init', '-q', 'sub');
    write(sub, 'code.txt', 'code\n');
    git(sub, 'add', '-A');
    git(sub, '-c', 'user.name=A', '-c', 'user.email=a@example.invalid', 'commit', '-q', '-m', 'inner');
    write(wt, 'top.txt', 'top\n');
    return { repo, wt };
  }

  function snapshot(worktree: string) {
    const gitDir = git(worktree, 'rev-parse', '--absolute-git-dir');
    return { files: treeState(worktree), index: readFileSync(path.join(gitDir, 'index')).toString('base64'), head: git(worktree, 'rev-parse', 'HEAD') };
  }

  function assertUnchanged(worktree: string, before: ReturnType<typeof snapshot>) {
    const after = snapshot(worktree);
    assertSameState(after.files, before.files);
    assert.equal(after.index, before.index, 'the index is byte for byte as it was');
    assert.equal(after.head, before.head, 'nothing committed');
  }

  const refusal = (e: PaddockError) => {
    assert.equal(e.code, 'NESTED_REPOSITORY', e.message);
    assert.match(e.message, /sub\/ in .* is a git repository of its own; its files cannot be landed/);
    assert.match(e.message, /nothing was changed/);
    return true;
  };

  it('apply refuses, changing nothing in the main worktree', async () => {
    const { repo, wt } = setup();
    const state = await worktreeStateCommit(wt, 'state');
    const before = snapshot(repo);
    await assert.rejects(applyCommitToWorktree(repo, state, 'Agent work'), refusal);
    assertUnchanged(repo, before);
  });

  it('committing the uncommitted work refuses, changing nothing in the agent worktree', async () => {
    const { wt } = setup();
    const before = snapshot(wt);
    await assert.rejects(commitAllWork(wt, 'land it', 'paddock/agent'), refusal);
    assertUnchanged(wt, before);
  });

  it('committing refuses a nested repository the agent staged itself (a gitlink in its index, no .gitmodules)', async () => {
    const { wt } = setup();
    git(wt, 'add', 'sub', 'top.txt');
    const before = snapshot(wt);
    await assert.rejects(commitAllWork(wt, 'land it', 'paddock/agent'), refusal);
    assertUnchanged(wt, before);
  });

  it('commits the rest as before when there is no nested repository', async () => {
    const { wt } = setup();
    await import('node:fs').then((fs) => fs.rmSync(path.join(wt, 'sub'), { recursive: true }));
    const head = await commitAllWork(wt, 'land it', 'paddock/agent');
    assert.equal(git(wt, 'show', '--format=', '--name-only', head), 'top.txt');
  });

  it('a gitlink the agent committed itself is not landed by a fast-forward, merge, squash or rebase', async () => {
    for (const strategy of ['ff-only', 'merge', 'squash', 'rebase'] as LandStrategy[]) {
      const { repo, wt } = setup(`repo-${strategy}`);
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', 'agent commits its nested repository');
      if (strategy !== 'ff-only') {
        write(repo, 'main-only.txt', 'moved on\n');
        git(repo, 'add', '-A');
        git(repo, 'commit', '-q', '-m', 'main moves on');
      }
      const before = snapshot(repo);
      const tip = git(wt, 'rev-parse', 'HEAD');
      await assert.rejects(
        landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy, message: 'Land\n', scratchRoot: sb.path(`scratch-${strategy}`) }),
        (e: PaddockError) => refusal(e) && /paddock\/agent's commits/.test(e.message),
        strategy,
      );
      assertUnchanged(repo, before);
    }
  });
});
