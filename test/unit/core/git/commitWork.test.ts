/**
 * commitAllWork commits only onto the agent's branch, checked out, with no
 * git operation stopped half-way: otherwise it refuses and changes nothing.
 */
import * as assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { commitAllWork, operationInProgress } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: commitAllWork', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** An agent worktree on paddock/agent whose change to shared.txt conflicts with main's. */
  function setup() {
    const repo = sb.repo({ 'shared.txt': 'base\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, 'shared.txt', 'agent\n');
    git(wt, 'commit', '-q', '-am', 'agent');
    write(repo, 'shared.txt', 'main\n');
    git(repo, 'commit', '-q', '-am', 'main');
    return { repo, wt };
  }

  function state(wt: string) {
    return { head: git(wt, 'rev-parse', 'HEAD'), status: git(wt, 'status', '--porcelain') };
  }

  it('refuses while a merge stopped on a conflict (it would conclude it with the markers)', async () => {
    const { wt } = setup();
    assert.throws(() => git(wt, 'merge', '-q', 'main'));
    const before = state(wt);
    await assert.rejects(commitAllWork(wt, 'work', 'paddock/agent'), (e: PaddockError) => e.code === 'WORKTREE_BUSY' && /has a merge in progress/.test(e.message));
    assert.deepEqual(state(wt), before);
  });

  it('names a git am stopped half-way as an am, and refuses it', async () => {
    const { repo, wt } = setup();
    const patch = git(repo, 'format-patch', '-1', '--stdout', 'main');
    write(sb.dir, 'main.patch', `${patch}\n`);
    assert.throws(() => git(wt, 'am', '-q', sb.path('main.patch')));
    assert.equal(await operationInProgress(wt), 'an am (git am)');
    write(wt, 'new.txt', 'new\n');
    const before = state(wt);
    await assert.rejects(commitAllWork(wt, 'work', 'paddock/agent'), /has an am \(git am\) in progress/);
    assert.deepEqual(state(wt), before);
  });

  it('refuses on another branch or a detached HEAD: the work would be committed away from the agent’s branch', async () => {
    const { wt } = setup();
    git(wt, 'checkout', '-q', '-b', 'other');
    write(wt, 'w.txt', 'w\n');
    await assert.rejects(commitAllWork(wt, 'work', 'paddock/agent'), (e: PaddockError) => e.code === 'WORKTREE_AWAY' && /is on branch other, not paddock\/agent/.test(e.message));
    git(wt, 'checkout', '-q', '--detach');
    await assert.rejects(commitAllWork(wt, 'work', 'paddock/agent'), /is on a detached HEAD, not paddock\/agent/);
    assert.match(git(wt, 'status', '--porcelain'), /^\?\? w\.txt$/m, 'not committed');
  });

  it('a commit refused (a pre-commit hook) leaves the staging area as it was: staged, unstaged and untracked alike', async () => {
    const { wt } = setup();
    write(wt, 'staged.txt', 'staged version\n');
    git(wt, 'add', 'staged.txt');
    write(wt, 'staged.txt', 'later edit, not staged\n');
    write(wt, 'shared.txt', 'edited, not staged\n');
    write(wt, 'untracked.txt', 'never added\n');
    const hooks = sb.path('hooks');
    write(hooks, 'pre-commit', '#!/bin/sh\necho refused by the hook >&2\nexit 1\n');
    git(wt, 'config', 'core.hooksPath', hooks);
    chmodSync(sb.path('hooks', 'pre-commit'), 0o755);
    const staged = () => ({ index: git(wt, 'ls-files', '--stage'), status: git(wt, 'status', '--porcelain'), head: git(wt, 'rev-parse', 'HEAD') });
    const before = staged();
    assert.match(before.status, /^AM staged\.txt$/m);
    await assert.rejects(commitAllWork(wt, 'work', 'paddock/agent'), /Could not commit the uncommitted work .*refused by the hook/);
    assert.deepEqual(staged(), before, 'the index is as the agent left it');
    assert.equal(git(wt, 'show', ':staged.txt'), 'staged version', 'the staged version is still staged');
  });

  // Bug 157: in a sparse checkout git's `add -A` refused, for the whole add, a file written outside the patterns.
  it('in a sparse checkout, commits a file written outside its patterns and keeps what the patterns leave out', async () => {
    const { wt } = setup();
    write(wt, 'kept/in.txt', 'in\n');
    write(wt, 'left/out.txt', 'out\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'folders');
    git(wt, 'sparse-checkout', 'set', '--cone', 'kept');
    write(wt, 'left/new.txt', 'written outside the patterns\n');
    write(wt, 'kept/in.txt', 'edited inside\n');
    await commitAllWork(wt, 'work', 'paddock/agent');
    assert.equal(git(wt, 'show', 'HEAD:left/new.txt'), 'written outside the patterns');
    assert.equal(git(wt, 'show', 'HEAD:kept/in.txt'), 'edited inside');
    assert.equal(git(wt, 'show', 'HEAD:left/out.txt'), 'out', 'a file the patterns leave out is no deletion');
    assert.equal(git(wt, 'status', '--porcelain'), '');
  });

  // Bug 138's review: the stall watch stopped after a minute a commit whose clean filter waits quietly on a slow service.
  it('a clean filter that waits quietly for over a minute (a slow service) is not judged stalled: the commit is made', async function () {
    this.timeout(400_000);
    const { wt } = setup();
    write(wt, '.gitattributes', '*.bin filter=slow\n');
    git(wt, 'add', '.gitattributes');
    git(wt, 'commit', '-q', '-m', 'attributes');
    // No CPU, nothing running, for 62 s: past GIT_STALL_MS (60 s). Before: stopped at 60 s, nothing committed.
    git(wt, 'config', 'filter.slow.clean', 'sleep 62; cat');
    write(wt, 'data.bin', 'data\n');
    await commitAllWork(wt, 'work', 'paddock/agent');
    assert.equal(git(wt, 'show', 'HEAD:data.bin'), 'data');
  });
});
