/**
 * Files flagged skip-worktree or assume-unchanged, whose edits `git status` does not show, are
 * compared with the index as git compares files (bug 120): under `core.fileMode=false` a chmod is
 * no edit, and under `core.symlinks=false` a symlink checked out as a plain file holding its
 * target is none either. They counted as edits: a landing onto the branch checked out there
 * refused it as uncommitted changes, and Apply as local changes in the way.
 */
import * as assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { assertTargetLandable, localChanges } from '../../../../src/core/git';
import { uncommittedCount } from '../../../../src/core/git/uncommitted';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: flagged files compared as git compares them', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('core.fileMode=false: a flagged file chmodded is no change; an edit to it still is', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 't.sh': 'echo\n' });
    git(repo, 'config', 'core.fileMode', 'false');
    git(repo, 'update-index', '--skip-worktree', 't.sh');
    chmodSync(join(repo, 't.sh'), 0o755);
    assert.deepEqual((await localChanges(repo)).tracked, []);
    assert.equal(await uncommittedCount(repo), 0);
    assert.equal(await assertTargetLandable(repo, 'main'), repo, 'a landing may move main there');
    write(repo, 't.sh', 'echo edited\n');
    assert.deepEqual((await localChanges(repo)).tracked, ['t.sh']);
  });

  it('core.symlinks=false: a flagged symlink checked out as a file holding its target is no change; other bytes are', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    write(sb.path('blob'), 'link', 'README.md');
    git(repo, 'update-index', '--add', '--cacheinfo', `120000,${git(repo, 'hash-object', '-w', sb.path('blob', 'link'))},link`);
    git(repo, 'commit', '-q', '-m', 'link');
    git(repo, 'config', 'core.symlinks', 'false');
    git(repo, 'rm', '-q', '--cached', 'link');
    git(repo, 'reset', '-q', '--hard');
    git(repo, 'update-index', '--assume-unchanged', 'link');
    assert.deepEqual((await localChanges(repo)).tracked, []);
    write(repo, 'link', 'other.md');
    assert.deepEqual((await localChanges(repo)).tracked, ['link']);
  });
});
