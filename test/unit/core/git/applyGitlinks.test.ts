/**
 * Apply to Workspace carries the agent's submodule commits (bug 97): `git apply` without --index
 * writes no gitlink, so a submodule the agent moved to another commit, added or removed was said
 * applied ("2 files changed") and nothing of it arrived. Compared with `git cherry-pick -n` of the
 * same commit in the same repository: the same index entries for the submodules, the same files.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { applyCommitToWorktree } from '../../../../src/core/git';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);
const GONE = '3'.repeat(40);

describe('git: apply carries submodule commits', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  const modules = (...paths: string[]): string => paths.map((p) => `[submodule "${p}"]\n\tpath = ${p}\n\turl = https://example.com/${p}.git\n`).join('');

  it('a submodule moved, added, removed (one at a nested path): staged as git cherry-pick -n stages them, the files as uncommitted changes', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', '.gitmodules': modules('libs/sub one', 'gone') });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${OLD},libs/sub one`);
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${GONE},gone`);
    git(repo, 'commit', '-q', '-m', 'submodules');
    // As a clone leaves a submodule not yet initialised: an empty folder.
    for (const dir of ['libs/sub one', 'gone']) mkdirSync(join(repo, dir), { recursive: true });
    const head = git(repo, 'rev-parse', 'HEAD');
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, '.gitmodules', modules('libs/sub one', 'added'));
    write(wt, 'README.md', 'hello\nagent\n');
    git(wt, 'update-index', '--cacheinfo', `160000,${NEW},libs/sub one`);
    git(wt, 'update-index', '--add', '--cacheinfo', `160000,${OLD},added`);
    git(wt, 'update-index', '--force-remove', 'gone');
    git(wt, 'add', '.gitmodules', 'README.md');
    git(wt, 'commit', '-q', '-m', 'agent moves submodules');
    const agent = git(wt, 'rev-parse', 'HEAD');

    // What git gives: the same commit picked without committing, in a worktree of its own.
    const expected = sb.path('expected');
    git(repo, 'worktree', 'add', '-q', '--detach', expected, head);
    git(expected, 'cherry-pick', '-n', agent);
    // .gitmodules too: staged with the gitlinks, so that a plain `git commit` registers them.
    const gitlinks = (cwd: string) => git(cwd, 'ls-files', '-s', '--', '.gitmodules', 'libs', 'added', 'gone');

    const files = await applyCommitToWorktree(repo, agent, 'Agent work');
    assert.deepEqual([...files].sort(), ['.gitmodules', 'README.md', 'added', 'gone', 'libs/sub one']);
    assert.equal(gitlinks(repo), gitlinks(expected));
    assert.match(gitlinks(repo), new RegExp(`\t\\.gitmodules\n160000 ${OLD} 0\tadded\n160000 ${NEW} 0\tlibs/sub one$`));
    assert.equal(git(repo, 'diff', '--cached', '--name-only', '--', '.gitmodules'), '.gitmodules');
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'nothing committed');
    assert.equal(git(repo, 'diff', 'HEAD', '--', 'README.md', '.gitmodules'), git(expected, 'diff', 'HEAD', '--', 'README.md', '.gitmodules'));
  });

  it('a submodule moved to another folder, a folder become a submodule and a submodule become a folder: the index as git cherry-pick -n leaves it', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', '.gitmodules': modules('old/place', 'becomes-folder'), 'vendored/a.txt': 'a\n', 'vendored/b/c.txt': 'c\n' });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${OLD},old/place`);
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${GONE},becomes-folder`);
    git(repo, 'commit', '-q', '-m', 'submodules');
    for (const dir of ['old/place', 'becomes-folder']) mkdirSync(join(repo, dir), { recursive: true });
    const head = git(repo, 'rev-parse', 'HEAD');
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    git(wt, 'update-index', '--force-remove', 'old/place', 'becomes-folder');
    git(wt, 'rm', '-q', '-r', 'vendored');
    write(wt, '.gitmodules', modules('new/place', 'vendored'));
    git(wt, 'update-index', '--add', '--cacheinfo', `160000,${OLD},new/place`);
    git(wt, 'update-index', '--add', '--cacheinfo', `160000,${NEW},vendored`);
    write(wt, 'becomes-folder/file.txt', 'now a folder\n');
    git(wt, 'add', '.gitmodules', 'becomes-folder/file.txt');
    git(wt, 'commit', '-q', '-m', 'agent moves submodules about');
    const agent = git(wt, 'rev-parse', 'HEAD');

    const expected = sb.path('expected');
    git(repo, 'worktree', 'add', '-q', '--detach', expected, head);
    git(expected, 'cherry-pick', '-n', agent);
    const index = (cwd: string) => git(cwd, 'ls-files', '-s');
    const staged = (cwd: string) => git(cwd, 'diff', '--cached', '--name-status', '--no-renames');

    await applyCommitToWorktree(repo, agent, 'Agent work');
    assert.equal(index(repo), index(expected));
    assert.equal(staged(repo), staged(expected));
    assert.match(staged(repo), /M\t.gitmodules/);
  });
});
