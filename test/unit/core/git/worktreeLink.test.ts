/**
 * Whether an agent's worktree still leads to its repository, as cleanup asks
 * before it captures: linked, cut (no .git), broken (a .git that leads
 * nowhere), or a repository of the agent's own; and the link written again.
 */
import * as assert from 'node:assert/strict';
import { cpSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { relinkWorktree, worktreeLink } from '../../../../src/core/git/worktreeLink';
import { git, Sandbox, useGitSandbox } from './gitTestUtil';

describe('git: worktreeLink', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('tells a linked worktree from a cut, a broken and an own one, and links a cut or broken one again', async () => {
    const repo = sb.repo();
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt, 'main');
    assert.equal(await worktreeLink(repo, wt), 'linked');
    assert.equal(await worktreeLink(repo, repo), 'linked', 'the main worktree leads to itself');

    rmSync(path.join(wt, '.git'));
    assert.equal(await worktreeLink(repo, wt), 'missing');
    assert.equal(await relinkWorktree(repo, wt), true);
    assert.equal(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent');

    writeFileSync(path.join(wt, '.git'), 'gitdir: /nonexistent/worktrees/x\n');
    assert.equal(await worktreeLink(repo, wt), 'broken');
    assert.equal(await relinkWorktree(repo, wt), true);
    assert.equal(await worktreeLink(repo, wt), 'linked');

    rmSync(path.join(wt, '.git'));
    git(wt, 'init', '-q');
    assert.equal(await worktreeLink(repo, wt), 'own');
    assert.equal(await relinkWorktree(repo, wt), false, 'a repository of its own is never overwritten');
    assert.equal(await worktreeLink(repo, wt), 'own');
  });

  it('a .git file the agent pointed at the main repository\'s .git is broken, and linked back to the worktree\'s own git dir', async () => {
    const repo = sb.repo();
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt, 'main');
    git(wt, 'commit', '-q', '--allow-empty', '-m', 'agent work');
    const agentHead = git(wt, 'rev-parse', 'HEAD');
    writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(repo, '.git')}\n`);
    assert.notEqual(git(wt, 'rev-parse', 'HEAD'), agentHead, 'git now reads the main worktree\'s HEAD');
    assert.equal(await worktreeLink(repo, wt), 'broken');
    assert.equal(await relinkWorktree(repo, wt), true);
    assert.equal(git(wt, 'rev-parse', 'HEAD'), agentHead);
    git(repo, 'worktree', 'remove', wt);
  });

  it("a .git file the agent pointed at another worktree's git dir is linked back to its own, and the other worktree keeps its registration, index and HEAD", async () => {
    const repo = sb.repo();
    const a = sb.path('wt-a');
    const b = sb.path('wt-b');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-a', a, 'main');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-b', b, 'main');
    writeFileSync(path.join(b, 'staged.txt'), 'staged in b\n');
    git(b, 'add', 'staged.txt');
    const bGitDir = git(b, 'rev-parse', '--absolute-git-dir');
    writeFileSync(path.join(a, '.git'), `gitdir: ${bGitDir}\n`);
    assert.equal(git(a, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-b', "git in a now reads b's HEAD");
    assert.equal(await worktreeLink(repo, a), 'broken');
    assert.equal(await relinkWorktree(repo, a), true);
    assert.equal(git(a, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-a');
    assert.equal(await worktreeLink(repo, b), 'linked', 'b is still linked to its own git dir');
    assert.equal(git(b, 'status', '--porcelain'), 'A  staged.txt');
    git(repo, 'worktree', 'remove', '--force', a);
    assert.equal(git(b, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-b', "removing a leaves b's git dir");
    assert.match(git(repo, 'worktree', 'list', '--porcelain'), new RegExp(`^worktree ${b}$`, 'm'));

    // A folder with no registration of its own whose .git names b's: not linked, and b left as it is.
    const c = sb.path('wt-c');
    mkdirSync(c);
    writeFileSync(path.join(c, '.git'), `gitdir: ${bGitDir}\n`);
    assert.equal(await relinkWorktree(repo, c), false);
    assert.equal(await worktreeLink(repo, b), 'linked');
  });

  it("a .git symlink to another worktree's git dir (or its .git file) is broken, and replaced by a link to the folder's own; the other is left as it was", async () => {
    const repo = sb.repo();
    const a = sb.path('wt-a');
    const b = sb.path('wt-b');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-a', a, 'main');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-b', b, 'main');
    writeFileSync(path.join(b, 'staged.txt'), 'staged in b\n');
    git(b, 'add', 'staged.txt');
    const bGitDir = git(b, 'rev-parse', '--absolute-git-dir');
    const bDotGit = readFileSync(path.join(b, '.git'), 'utf8');
    for (const target of [bGitDir, path.join(b, '.git')]) {
      rmSync(path.join(a, '.git'));
      symlinkSync(target, path.join(a, '.git'));
      assert.equal(git(a, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-b', "git in a now reads b's HEAD");
      assert.equal(await worktreeLink(repo, a), 'broken', target);
      assert.equal(await relinkWorktree(repo, a), true);
      assert.equal(lstatSync(path.join(a, '.git')).isFile(), true, 'a .git file of its own');
      assert.equal(git(a, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-a');
      assert.equal(readFileSync(path.join(b, '.git'), 'utf8'), bDotGit, "b's .git is not written through the symlink");
      assert.equal(git(b, 'status', '--porcelain'), 'A  staged.txt');
    }
    // A folder with no registration of its own whose .git is a symlink to b's git dir: not linked.
    const c = sb.path('wt-c');
    mkdirSync(c);
    symlinkSync(bGitDir, path.join(c, '.git'));
    assert.equal(await worktreeLink(repo, c), 'broken');
    assert.equal(await relinkWorktree(repo, c), false);
    assert.equal(await worktreeLink(repo, b), 'linked');
  });

  it("a .git folder that is another worktree's git dir (copied there) is broken and never linked or repaired", async () => {
    const repo = sb.repo();
    const a = sb.path('wt-a');
    const b = sb.path('wt-b');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-a', a, 'main');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-b', b, 'main');
    const bGitDir = git(b, 'rev-parse', '--absolute-git-dir');
    rmSync(path.join(a, '.git'));
    cpSync(bGitDir, path.join(a, '.git'), { recursive: true });
    // Its commondir made absolute, so the copy still leads to the repository.
    writeFileSync(path.join(a, '.git', 'commondir'), `${path.join(repo, '.git')}\n`);
    assert.equal(git(a, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-b', "git in a reads b's HEAD");
    assert.equal(await worktreeLink(repo, a), 'broken');
    assert.equal(await relinkWorktree(repo, a), false);
    assert.equal(readFileSync(path.join(bGitDir, 'gitdir'), 'utf8').trim(), path.join(b, '.git'), "b's registration still names b");
    assert.equal(await worktreeLink(repo, b), 'linked');
  });

  it('never takes the repository of a folder above for the link (a worktree root inside another checkout)', async () => {
    const outer = sb.repo({ 'a.txt': 'a\n' }, 'outer');
    const repo = sb.repo({ 'b.txt': 'b\n' }, 'inner-repo');
    const wt = path.join(outer, 'trees', 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt, 'main');
    // An empty .git folder is no repository: git would look further up and find the outer checkout.
    rmSync(path.join(wt, '.git'));
    mkdirSync(path.join(wt, '.git'));
    assert.equal(await worktreeLink(repo, wt), 'broken');
    assert.equal(await worktreeLink(outer, wt), 'broken', 'not linked to the checkout it sits in');
  });

  it('a repository whose .git is a symlink to its git dir is linked to its worktrees', async () => {
    const repo = sb.repo();
    renameSync(path.join(repo, '.git'), sb.path('moved.git'));
    symlinkSync(sb.path('moved.git'), path.join(repo, '.git'));
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt, 'main');
    assert.equal(await worktreeLink(repo, wt), 'linked');
  });
  it("linking a worktree again never touches the person's other worktrees (no git worktree repair)", async () => {
    const repo = sb.repo();
    const wt = sb.path('wt');
    const mine = sb.path('mine');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt, 'main');
    git(repo, 'worktree', 'add', '-q', '-b', 'person', mine, 'main');
    // The person's checkout now belongs to a copy of the repository (cp -r, then repair there):
    // the original still registers it, and git's repair of every registration would take it back.
    const copy = sb.path('copy');
    cpSync(repo, copy, { recursive: true });
    git(copy, 'worktree', 'repair', mine);
    const before = readFileSync(path.join(mine, '.git'));
    assert.match(before.toString(), /copy/);
    // A cut link with no registration found, two of them, and a .git folder that is no repository.
    const attempts: Array<() => void> = [
      () => rmSync(path.join(wt, '.git'), { recursive: true, force: true }),
      () => {
        rmSync(path.join(wt, '.git'), { recursive: true, force: true });
        mkdirSync(path.join(wt, '.git'));
      },
    ];
    const own = path.join(repo, '.git', 'worktrees', 'wt');
    cpSync(own, path.join(repo, '.git', 'worktrees', 'wt-twin'), { recursive: true });
    for (const cut of attempts) {
      cut();
      await relinkWorktree(repo, wt);
      assert.deepEqual(readFileSync(path.join(mine, '.git')), before, "the person's checkout's .git is byte for byte as it was");
      assert.match(git(mine, 'rev-parse', '--git-common-dir'), /copy/);
    }
  });
});
