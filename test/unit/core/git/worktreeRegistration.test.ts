/**
 * Paddock forgets only the worktree registrations it made: a worktree of the
 * person's whose folder is away for now (an unmounted drive) keeps its
 * registration, its index (staged work) and the lock on its branch through a
 * rebase landing, a sweep of leftovers, an agent's cleanup and an undone start.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { landBranch, sweepLandingWorktrees } from '../../../../src/core/git';
import { deleteBranch } from '../../../../src/core/git/branch';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { forgetWorktreeRegistration, resolvedPath } from '../../../../src/core/git/worktreeRegistration';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: forgetting worktree registrations', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** A repo, and the person's worktree on `topic` with a staged file, its folder then moved away (the drive unmounted). */
  function setupAway() {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const person = sb.path('usb', 'topic');
    git(repo, 'worktree', 'add', '-q', '-b', 'topic', person, 'main');
    write(person, 'staged.txt', 'staged work\n');
    git(person, 'add', 'staged.txt');
    const away = sb.path('usb-unmounted');
    renameSync(sb.path('usb'), away);
    return { repo, person, remount: () => renameSync(away, sb.path('usb')) };
  }

  /** The person's worktree is still registered, its staged work and its branch's lock intact, once the drive is back. */
  function assertKept(repo: string, person: string, remount: () => void) {
    assert.match(git(repo, 'worktree', 'list', '--porcelain'), new RegExp(`worktree ${person}\\n`), 'still registered while away');
    remount();
    assert.equal(git(person, 'status', '--porcelain'), 'A  staged.txt', 'its index kept');
    assert.throws(() => git(repo, 'branch', '-D', 'topic'), /checked out at|used by worktree/, 'its branch still locked');
  }

  /** An agent's worktree on paddock/agent with one commit. */
  function agent(repo: string) {
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, 'feature.txt', 'feature\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent work');
    return { wt, tip: git(wt, 'rev-parse', 'HEAD') };
  }

  it('resolvedPath names a folder as git does: links resolved, through its parent when it is gone, itself when that is gone too', () => {
    const real = realpathSync(sb.path());
    mkdirSync(path.join(real, 'real'));
    symlinkSync(path.join(real, 'real'), path.join(real, 'link'));
    assert.equal(resolvedPath(path.join(real, 'link')), path.join(real, 'real'));
    assert.equal(resolvedPath(path.join(real, 'link', 'gone')), path.join(real, 'real', 'gone'));
    assert.equal(resolvedPath(path.join(real, 'gone', 'deeper')), path.join(real, 'gone', 'deeper'));
    assert.equal(resolvedPath('/'), '/');
  });

  it('forgetWorktreeRegistration removes the one registration asked for, and only when its folder is gone', async () => {
    const { repo, person, remount } = setupAway();
    const { wt } = agent(repo);
    assert.equal(await forgetWorktreeRegistration(repo, wt), false, 'a folder on disk is never forgotten');
    assert.match(git(repo, 'worktree', 'list'), /agent-wt/);
    rmSync(wt, { recursive: true, force: true });
    assert.equal(await forgetWorktreeRegistration(repo, wt), true);
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /agent-wt/);
    assertKept(repo, person, remount);
  });

  it("a rebase landing's temporary worktree is removed without touching the person's worktree that is away", async () => {
    const { repo, person, remount } = setupAway();
    const { tip } = agent(repo);
    write(repo, 'other.txt', 'other\n');
    git(repo, 'add', 'other.txt');
    git(repo, 'commit', '-q', '-m', 'main moves');
    const res = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'rebase', message: 'Land\n', scratchRoot: sb.path('scratch') });
    assert.equal(res.kind, 'rebase');
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /land-/);
    assertKept(repo, person, remount);
  });

  it("the sweep of a dead process's landing worktree leaves the person's worktree that is away", async () => {
    const { repo, person, remount } = setupAway();
    const scratch = sb.path('scratch');
    mkdirSync(scratch);
    const leftover = path.join(scratch, 'land-999999-deadbeef');
    git(repo, 'worktree', 'add', '-q', '--detach', leftover, 'main');
    assert.deepEqual(await sweepLandingWorktrees(scratch), [leftover]);
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /land-999999/);
    assertKept(repo, person, remount);
  });

  it("an agent's cleanup (its folder deleted by hand) forgets its registration and deletes its branch, leaving the person's worktree that is away", async () => {
    const { repo, person, remount } = setupAway();
    const { wt } = agent(repo);
    rmSync(wt, { recursive: true, force: true });
    assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'already-gone-pruned' });
    await deleteBranch(repo, 'paddock/agent', { force: true, worktree: wt });
    assert.equal(git(repo, 'branch', '--list', 'paddock/agent'), '');
    assertKept(repo, person, remount);
  });

  it("a branch held by the person's worktree that is away is not deleted, nor its registration forgotten", async () => {
    const { repo, person, remount } = setupAway();
    const { wt } = agent(repo);
    await assert.rejects(deleteBranch(repo, 'topic', { force: true, worktree: wt }), /Could not delete branch topic/);
    assert.equal(git(repo, 'branch', '--list', 'topic'), '+ topic');
    assertKept(repo, person, remount);
  });
});
