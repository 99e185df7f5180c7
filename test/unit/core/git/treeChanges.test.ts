/**
 * What a landing's checks read of a move between two commits, in real repositories: one
 * `diff-tree` shared by the checks (its records parsed alike with and without `--stdin`'s
 * headers), and the unmerged paths read from the index alone.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { unmergedPaths } from '../../../../src/core/git';
import { ABSENT_MODE, GITLINK_MODE, parseTreeChanges, treeChanges } from '../../../../src/core/git/treeChanges';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: the changes a move between two commits makes', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('names every path with its mode before and after: added, deleted, changed, a symlink, a gitlink, a name with a newline', async () => {
    const repo = sb.repo({ 'kept.txt': 'kept\n', 'gone.txt': 'gone\n', 'run.sh': 'echo\n' });
    const from = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'rm', '-q', 'gone.txt');
    write(repo, 'new dir/added.txt', 'new\n');
    write(repo, 'two\nlines.txt', 'odd name\n');
    symlinkSync('kept.txt', path.join(repo, 'link'));
    git(repo, 'add', '-A');
    git(repo, 'update-index', '--chmod=+x', 'run.sh');
    git(repo, 'update-index', '--add', '--cacheinfo', `${GITLINK_MODE},${from},sub`);
    git(repo, 'commit', '-q', '-m', 'changes');
    const to = git(repo, 'rev-parse', 'HEAD');

    const changes = (await treeChanges(repo, from, to)).sort((a, b) => a.path.localeCompare(b.path));
    // The new id: a gitlink's is its commit, staged as it is (applyGitlinks); an absent path's is all zeros.
    assert.equal(changes.find((c) => c.path === 'sub')?.newId, from);
    assert.equal(changes.find((c) => c.path === 'gone.txt')?.newId, '0'.repeat(40));
    assert.deepEqual(changes.map(({ newId: _id, ...c }) => c), [
      { oldMode: '100644', newMode: ABSENT_MODE, path: 'gone.txt' },
      { oldMode: ABSENT_MODE, newMode: '120000', path: 'link' },
      { oldMode: ABSENT_MODE, newMode: '100644', path: 'new dir/added.txt' },
      { oldMode: '100644', newMode: '100755', path: 'run.sh' },
      { oldMode: ABSENT_MODE, newMode: GITLINK_MODE, path: 'sub' },
      { oldMode: ABSENT_MODE, newMode: '100644', path: 'two\nlines.txt' },
    ]);
    // `--stdin` heads each pair with its ids: the same records come out, the headers (and a pair with no difference) skipped.
    const [fromTree, toTree] = [git(repo, 'rev-parse', `${from}^{tree}`), git(repo, 'rev-parse', `${to}^{tree}`)];
    const stdinOut = execFileSync('git', ['diff-tree', '-r', '-z', '--no-renames', '--stdin'], { cwd: repo, input: `${fromTree} ${toTree}\n${fromTree} ${fromTree}\n` }).toString();
    assert.deepEqual(
      parseTreeChanges(stdinOut).sort((a, b) => a.path.localeCompare(b.path)),
      changes,
    );
  });

  it('reads unmerged paths from the index, once each, with no file on disk compared', async () => {
    const repo = sb.repo({ 'shared.txt': 'base\n', 'other.txt': 'other\n' });
    git(repo, 'checkout', '-q', '-b', 'theirs');
    write(repo, 'shared.txt', 'theirs\n');
    git(repo, 'commit', '-qam', 'theirs');
    git(repo, 'checkout', '-q', 'main');
    write(repo, 'shared.txt', 'ours\n');
    git(repo, 'commit', '-qam', 'ours');
    assert.throws(() => git(repo, 'merge', '-q', 'theirs'));
    // An edit to another file is not a conflict; the conflicted file's three stages are one path.
    write(repo, 'other.txt', 'edited\n');
    assert.deepEqual(await unmergedPaths(repo), ['shared.txt']);
    git(repo, 'merge', '--abort');
    assert.deepEqual(await unmergedPaths(repo), []);
  });
});
