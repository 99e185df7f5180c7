/**
 * The person's submodule ignore settings hide no change of the agent's (bug 97, found by review):
 * `diff.ignoreSubmodules=all` and `submodule.<name>.ignore=all` made git's diffs leave out a
 * submodule the agent moved — from the patch kept as evidence, from the changed-files list and from
 * Compare Attempts' counts — though a landing still moves it. Every such diff now says
 * `--ignore-submodules=none`.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { changedFiles, localChanges } from '../../../../src/core/git';
import { uncommittedCount } from '../../../../src/core/git/uncommitted';
import { assertTargetLandable } from '../../../../src/core/git/advanceBranch';
import type { PaddockError } from '../../../../src/core/common/errors';
import { writeVerifiedPatch } from '../../../../src/core/git/patchFile';
import { fileChanges } from '../../../../src/core/attempts/attemptTree';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);

describe('git: the person\'s submodule ignore settings hide none of the agent\'s changes', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('with diff.ignoreSubmodules=all and submodule.sub.ignore=all: the patch, the changed files and the compare counts name the moved submodule', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', '.gitmodules': '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n' });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${OLD},sub`);
    git(repo, 'commit', '-q', '-m', 'submodule');
    const base = git(repo, 'rev-parse', 'HEAD');
    write(repo, 'README.md', 'hello\nagent\n');
    git(repo, 'update-index', '--cacheinfo', `160000,${NEW},sub`);
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '-q', '-m', 'agent moves sub');
    // As a clone leaves a submodule not yet initialised: an empty folder.
    mkdirSync(join(repo, 'sub'));
    git(repo, 'config', 'diff.ignoreSubmodules', 'all');
    git(repo, 'config', 'submodule.sub.ignore', 'all');
    const head = git(repo, 'rev-parse', 'HEAD');

    const { temp, count } = await writeVerifiedPatch(repo, base, git(repo, 'rev-parse', `${head}^{tree}`), sb.path('evidence', 'work.patch'), sb.path());
    const patch = readFileSync(temp, 'utf8');
    rmSync(temp);
    assert.equal(count, 2);
    assert.match(patch, new RegExp(`\\+Subproject commit ${NEW}`));
    assert.deepEqual((await changedFiles(repo, repo, base)).map((f) => f.path).sort(), ['README.md', 'sub']);
    assert.deepEqual((await fileChanges(repo, base, head)).map((f) => f.path).sort(), ['README.md', 'sub']);
  });

  // Found in session 11: `git status` (the Agents view's "uncommitted changes", the landing's
  // question, the target's and workspace's local changes) followed submodule.<name>.ignore=all, and a
  // submodule moved to a new commit of its own was said to be no uncommitted work — a landing then
  // landed without it, unasked — though `git add -A` commits it.
  /** A repository whose submodule `sub` (a real nested repository) has moved to a new commit of its own, unstaged, under ignore=all. */
  function movedSubmodule(): string {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const sub = join(repo, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q', '-b', 'main');
    git(sub, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'one');
    write(repo, '.gitmodules', '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n');
    git(repo, 'add', '.gitmodules', 'sub');
    git(repo, 'commit', '-q', '-m', 'submodule');
    git(sub, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'two');
    git(repo, 'config', 'submodule.sub.ignore', 'all');
    git(repo, 'config', 'diff.ignoreSubmodules', 'all');
    assert.equal(git(repo, 'status', '--porcelain'), '', 'git status itself hides it');
    write(sub, 'build.o', 'junk\n');
    return repo;
  }

  it('with submodule.sub.ignore=all: a submodule moved to a new commit counts as uncommitted work', async () => {
    const repo = movedSubmodule();
    assert.equal(await uncommittedCount(repo), 1);
    assert.deepEqual((await localChanges(repo)).tracked, ['sub']);
  });

  it('with submodule.sub.ignore=all: a target branch checked out with its submodule moved is refused as a target with changes, not moved under it', async () => {
    const repo = movedSubmodule();
    await assert.rejects(assertTargetLandable(repo, 'main'), (e: PaddockError) => e.code === 'TARGET_DIRTY' && /uncommitted changes \(sub\)/.test(e.message));
  });

  // Found by review in session 11: the status above said --ignore-submodules=none, over the person's
  // `ignore = untracked`: a submodule's untracked build output made the target "dirty" (refused, and no
  // commit or stash of theirs clears it) and "commit uncommitted" found nothing to commit.
  it('with submodule.sub.ignore=untracked: an untracked file inside the submodule is no uncommitted work of the superproject', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const sub = join(repo, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q', '-b', 'main');
    git(sub, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'one');
    write(repo, '.gitmodules', '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n\tignore = untracked\n');
    git(repo, 'add', '.gitmodules', 'sub');
    git(repo, 'commit', '-q', '-m', 'submodule');
    write(sub, 'build.o', 'junk\n');
    assert.equal(await uncommittedCount(repo), 0);
    assert.deepEqual((await localChanges(repo, 'normal')).tracked, []);
    await assertTargetLandable(repo, 'main');
  });
});
