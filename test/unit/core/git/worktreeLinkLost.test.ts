/**
 * A cut worktree whose registration lost track of it: the admin dir its `.git` names is there but
 * its `gitdir` file is missing, empty, or names a folder that is gone. `git worktree repair` linked
 * it from the `.git` file; once Paddock stopped running repair (bug 177), cleanup and landing
 * stopped on every retry, blaming a `.git` that was fine and naming git, which never ran.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureLinked, relinkWorktree, worktreeLink } from '../../../../src/core/git/worktreeLink';
import { worktreeGitEnv } from '../../../../src/core/git/worktreeGitEnv';
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
      const env = await worktreeGitEnv(repo, wt);
      assert.equal(env.GIT_DIR && realpathSync(env.GIT_DIR), realpathSync(admin), 'a read goes through the registration its .git names');
      assert.equal(await relinkWorktree(repo, wt), true);
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
    const check = await ensureLinked(repo, wt);
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
    const check = await ensureLinked(repo, wt);
    assert.ok(!check.ok && /no registration in .* names it, and the git dir its \.git names \(.*lookalike\.git\) is not one of them/.test(check.problem), JSON.stringify(check));
    assert.ok(!check.ok && /its files are intact/.test(check.problem), JSON.stringify(check));
    assert.equal(readFileSync(path.join(wt, '.git'), 'utf8'), `gitdir: ${sb.path('lookalike.git')}\n`, 'nothing written');
  });
});
