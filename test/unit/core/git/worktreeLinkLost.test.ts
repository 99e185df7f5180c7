/**
 * A cut worktree whose registration lost track of it: the admin dir its `.git` names is there but
 * its `gitdir` file is missing, empty, or names a folder that is gone. `git worktree repair` linked
 * it from the `.git` file; once Paddock stopped running repair (bug 176), cleanup and landing
 * stopped on every retry, blaming a `.git` that was fine and naming git, which never ran.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureLinked, relinkWorktree, worktreeLink } from '../../../../src/core/git/worktreeLink';
import { worktreeGitEnv } from '../../../../src/core/git/worktreeGitEnv';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { git, Sandbox, useGitSandbox } from './gitTestUtil';

describe('git: worktreeLink, a registration that lost track of its worktree', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** An agent's worktree with uncommitted work, and its admin dir. */
  function agentWorktree(name: string): { repo: string; wt: string; admin: string } {
    const repo = sb.repo();
    const wt = sb.path(name);
    git(repo, 'worktree', 'add', '-q', '-b', name, wt, 'main');
    writeFileSync(path.join(wt, 'work.txt'), 'precious\n');
    return { repo, wt, admin: git(wt, 'rev-parse', '--absolute-git-dir') };
  }

  for (const [variant, spoil] of [
    ['its gitdir file deleted', (admin: string) => rmSync(path.join(admin, 'gitdir'))],
    ['its gitdir file empty', (admin: string) => writeFileSync(path.join(admin, 'gitdir'), '')],
    ['its gitdir naming a folder that is gone', (admin: string) => writeFileSync(path.join(admin, 'gitdir'), `${sb.path('moved-away')}/.git\n`)],
  ] as const) {
    it(`links it from its .git to the registration it names (${variant}), its work intact`, async () => {
      const { repo, wt, admin } = agentWorktree('agent');
      spoil(admin);
      assert.equal(await worktreeLink(repo, wt), 'broken');
      const env = await worktreeGitEnv(repo, wt, 'agent');
      assert.equal(env.GIT_DIR && realpathSync(env.GIT_DIR), realpathSync(admin), 'a read goes through the registration its .git names');
      assert.equal(await relinkWorktree(repo, wt, 'agent'), true);
      assert.equal(await worktreeLink(repo, wt), 'linked');
      assert.equal(readFileSync(path.join(admin, 'gitdir'), 'utf8'), `${realpathSync(wt)}/.git\n`);
      assert.equal(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent');
      assert.equal(readFileSync(path.join(wt, 'work.txt'), 'utf8'), 'precious\n');
      assert.match(git(wt, 'status', '--porcelain'), /\?\? work\.txt/);
    });
  }

  it("never takes a registration whose gitdir names another checkout that is there, and says why in Paddock's words", async () => {
    const { repo, wt } = agentWorktree('agent');
    const other = sb.path('other');
    git(repo, 'worktree', 'add', '-q', '-b', 'other', other, 'main');
    const otherAdmin = git(other, 'rev-parse', '--absolute-git-dir');
    const otherGitdir = readFileSync(path.join(otherAdmin, 'gitdir'));
    writeFileSync(path.join(wt, '.git'), `gitdir: ${otherAdmin}\n`);
    rmSync(path.join(git(repo, 'rev-parse', '--absolute-git-dir'), 'worktrees', 'agent'), { recursive: true });
    const check = await ensureLinked(repo, wt, 'agent');
    assert.equal(check.ok, false);
    assert.ok(!check.ok && check.problem.includes(`belongs to ${other}`), JSON.stringify(check));
    assert.ok(!check.ok && !/git could not|its \.git is broken/.test(check.problem), JSON.stringify(check));
    assert.deepEqual(readFileSync(path.join(otherAdmin, 'gitdir')), otherGitdir, "the other checkout's registration is left byte for byte");
    assert.equal(git(other, 'rev-parse', '--abbrev-ref', 'HEAD'), 'other');
    assert.equal(readFileSync(path.join(wt, 'work.txt'), 'utf8'), 'precious\n');
  });

  it('never links to a git dir outside the repository\'s worktrees/ folder, and names the real cause', async () => {
    const { repo, wt, admin } = agentWorktree('agent');
    git(sb.path(), 'init', '-q', '--bare', 'lookalike.git');
    writeFileSync(path.join(wt, '.git'), `gitdir: ${sb.path('lookalike.git')}\n`);
    rmSync(admin, { recursive: true });
    const check = await ensureLinked(repo, wt, 'agent');
    assert.ok(!check.ok && /no registration in .* names it, and the git dir its \.git names \(.*lookalike\.git\) is not one of them/.test(check.problem), JSON.stringify(check));
    assert.ok(!check.ok && /its files are intact/.test(check.problem), JSON.stringify(check));
    assert.equal(readFileSync(path.join(wt, '.git'), 'utf8'), `gitdir: ${sb.path('lookalike.git')}\n`, 'nothing written');
  });
  for (const locked of [false, true]) {
    it(`never takes the registration of the person's checkout that is away (${locked ? 'locked' : 'not locked'}): its HEAD and staged work survive the cleanup`, async () => {
      const { repo, wt } = agentWorktree('agent');
      const mine = sb.path('mine');
      git(repo, 'worktree', 'add', '-q', '-b', 'mine', mine, 'main');
      writeFileSync(path.join(mine, 'staged.txt'), 'staged work\n');
      git(mine, 'add', 'staged.txt');
      const mineAdmin = git(mine, 'rev-parse', '--absolute-git-dir');
      if (locked) git(repo, 'worktree', 'lock', '--reason', 'on a usb stick', mine);
      // The agent's .git names the person's admin dir and its own registration is gone.
      writeFileSync(path.join(wt, '.git'), `gitdir: ${mineAdmin}\n`);
      rmSync(path.join(git(repo, 'rev-parse', '--absolute-git-dir'), 'worktrees', 'agent'), { recursive: true });
      const away = sb.path('mine-away');
      renameSync(mine, away); // unmounted, or moved aside for now
      const gitdirBefore = readFileSync(path.join(mineAdmin, 'gitdir'));
      const check = await ensureLinked(repo, wt, 'agent');
      assert.equal(check.ok, false, JSON.stringify(check));
      assert.ok(!check.ok && (locked ? /is locked for/ : /HEAD does not name the agent's branch agent/).test(check.problem), JSON.stringify(check));
      await assert.rejects(worktreeGitEnv(repo, wt, 'agent'), /has no record of it/, "a read never goes through the person's registration");
      if (check.ok) await removeWorktree(repo, wt);
      assert.ok(existsSync(mineAdmin), "the person's admin dir is kept");
      assert.deepEqual(readFileSync(path.join(mineAdmin, 'gitdir')), gitdirBefore, 'its gitdir is left byte for byte');
      renameSync(away, mine);
      assert.equal(git(mine, 'rev-parse', '--abbrev-ref', 'HEAD'), 'mine');
      assert.match(git(mine, 'status', '--porcelain'), /^A {2}staged\.txt/m);
    });
  }

  it('takes a registration that lost track only with the agent\'s branch to prove it its own', async () => {
    const { repo, wt, admin } = agentWorktree('agent');
    writeFileSync(path.join(admin, 'gitdir'), `${sb.path('moved-away')}/.git\n`);
    const check = await ensureLinked(repo, wt);
    assert.ok(!check.ok && /HEAD does not name the agent's branch/.test(check.problem), JSON.stringify(check));
    assert.equal(readFileSync(path.join(admin, 'gitdir'), 'utf8'), `${sb.path('moved-away')}/.git\n`, 'nothing written');
  });
});
