/**
 * Apply to Workspace and the person's own submodule state (bug 97, found by review): the lists of
 * the agent's changes followed the person's diff.ignoreSubmodules / submodule.<name>.ignore while
 * the staging of gitlinks did not, and `git status` names an untracked repository as `dir/` where
 * the patch names `dir` — so the person's staged submodule commit, or their own clone, was
 * overwritten, or a submodule's move was said applied and never arrived.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyCommitToWorktree } from '../../../../src/core/git';
import type { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);
const MINE = '4'.repeat(40);

describe('git: apply and the person\'s submodules', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  const modules = (...paths: string[]): string => paths.map((p) => `[submodule "${p}"]\n\tpath = ${p}\n\turl = https://example.com/${p}.git\n`).join('');

  /** A repository with submodule `sub` at OLD, and the agent's commit moving it to NEW (and editing README.md). */
  function moved(gitmodules = modules('sub')): { repo: string; agent: string } {
    const repo = sb.repo({ 'README.md': 'hello\n', '.gitmodules': gitmodules });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${OLD},sub`);
    git(repo, 'commit', '-q', '-m', 'submodule');
    mkdirSync(join(repo, 'sub'));
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, 'README.md', 'hello\nagent\n');
    git(wt, 'update-index', '--cacheinfo', `160000,${NEW},sub`);
    git(wt, 'commit', '-q', '-am', 'agent moves sub');
    return { repo, agent: git(wt, 'rev-parse', 'HEAD') };
  }

  it('diff.ignoreSubmodules=all and the person\'s own commit staged for the submodule: refused, their gitlink kept', async () => {
    const { repo, agent } = moved();
    git(repo, 'config', 'diff.ignoreSubmodules', 'all');
    git(repo, 'update-index', '--cacheinfo', `160000,${MINE},sub`);
    await assert.rejects(applyCommitToWorktree(repo, agent, 'Agent work'), (e: PaddockError) => {
      assert.equal(e.code, 'LOCAL_CHANGES');
      assert.match(e.message, /\bsub\b/);
      return true;
    });
    assert.equal(git(repo, 'ls-files', '-s', 'sub'), `160000 ${MINE} 0\tsub`);
    assert.equal(git(repo, 'diff', 'HEAD', '--', 'README.md'), '', 'nothing was changed');
  });

  it('submodule.sub.ignore=all in .gitmodules: the move is listed and staged', async () => {
    const { repo, agent } = moved(`${modules('sub')}\tignore = all\n`);
    const files = await applyCommitToWorktree(repo, agent, 'Agent work');
    assert.deepEqual([...files].sort(), ['README.md', 'sub']);
    assert.equal(git(repo, 'ls-files', '-s', 'sub'), `160000 ${NEW} 0\tsub`);
  });

  it('a repository of the person\'s, untracked, where the agent adds a submodule or files: refused, naming it, nothing written', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, '.gitmodules', modules('sub2'));
    git(wt, 'update-index', '--add', '--cacheinfo', `160000,${NEW},sub2`);
    write(wt, 'clone/notes.txt', 'the agent\'s\n');
    git(wt, 'add', '.gitmodules', 'clone/notes.txt');
    git(wt, 'commit', '-q', '-m', 'agent adds a submodule and a folder');
    const agent = git(wt, 'rev-parse', 'HEAD');
    // The person's own clones, never added: `git status` shows them as `sub2/` and `clone/`, as untracked files in the way.
    for (const dir of ['sub2', 'clone']) {
      mkdirSync(join(repo, dir));
      git(join(repo, dir), 'init', '-q');
      write(join(repo, dir), 'mine.txt', 'mine\n');
    }
    await assert.rejects(applyCommitToWorktree(repo, agent, 'Agent work'), (e: PaddockError) => {
      assert.equal(e.code, 'UNTRACKED_IN_THE_WAY');
      assert.match(e.message, /sub2\//);
      assert.match(e.message, /clone\//);
      return true;
    });
    assert.equal(git(repo, 'ls-files', '-s', 'sub2'), '');
    assert.equal(existsSync(join(repo, 'clone', 'notes.txt')), false);
    assert.equal(existsSync(join(repo, '.gitmodules')), false);
  });

  it('the index locked by another git process when the submodule is to be staged: one sentence naming the lock, nothing changed', async () => {
    const { repo, agent } = moved();
    const lock = join(repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    await assert.rejects(applyCommitToWorktree(repo, agent, 'Agent work'), (e: Error) => {
      assert.equal(e.message, `Could not apply Agent work in ${repo}: another git process holds the index lock (${lock}); nothing was changed.`);
      return true;
    });
    unlinkSync(lock);
    assert.equal(git(repo, 'status', '--porcelain'), '');
  });
});
