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
import { changedFiles } from '../../../../src/core/git';
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
    assert.deepEqual((await changedFiles(repo, base)).map((f) => f.path).sort(), ['README.md', 'sub']);
    assert.deepEqual((await fileChanges(repo, base, head)).map((f) => f.path).sort(), ['README.md', 'sub']);
  });
});
