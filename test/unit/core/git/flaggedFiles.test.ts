/**
 * Edits git was told not to see (assume-unchanged, skip-worktree) in real
 * repositories: found by content through git's own filters, counted as local
 * changes by every check that refuses to overwrite them, and committed by
 * "commit everything" with their flags put back.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, statSync, symlinkSync, unlinkSync, chmodSync, utimesSync } from 'node:fs';
import * as path from 'node:path';
import { applyCommitToWorktree, commitAllWork, localChanges, updateFromBase, worktreeStateCommit } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
import { flaggedEdits } from '../../../../src/core/git/flaggedFiles';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: files flagged assume-unchanged or skip-worktree', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  const edited = async (dir: string) => (await flaggedEdits(dir)).map((e) => e.path).sort();

  /** Same size, time put back: even git's stat check cannot tell (and status ignores the flag anyway). */
  function editKeepingStat(dir: string, rel: string, content: string): void {
    const file = path.join(dir, rel);
    const st = statSync(file);
    assert.equal(Buffer.byteLength(content), st.size);
    write(dir, rel, content);
    utimesSync(file, st.atime, st.mtime);
  }

  it('finds every kind of hidden edit and nothing else', async () => {
    const repo = sb.repo({ 'a.txt': 'aaaa\n', 'b.txt': 'bbbb\n', 'c.txt': 'cccc\n', 'd.txt': 'dddd\n', 'same.txt': 'same\n', 'run.sh': 'echo\n', 'sparse.txt': 'far\n', 'upper.txt': 'quiet\n', '.gitattributes': 'upper.txt filter=upper\n' });
    symlinkSync('a.txt', path.join(repo, 'link'));
    git(repo, 'config', 'filter.upper.clean', 'tr a-z A-Z');
    git(repo, 'add', '-A');
    // upper.txt was committed before its filter existed: whether `add -A` runs it through the filter
    // depends on git's racy-entry check (the file's time against the index's), so a loaded machine
    // kept 'quiet' in the index. Staged through the filter here, always: the index holds 'QUIET'.
    git(repo, 'add', '--renormalize', 'upper.txt');
    git(repo, 'commit', '-q', '-m', 'link and filter');
    git(repo, 'update-index', '--assume-unchanged', 'a.txt', 'c.txt', 'same.txt', 'run.sh', 'link', 'upper.txt');
    git(repo, 'update-index', '--skip-worktree', 'b.txt', 'd.txt', 'sparse.txt');

    editKeepingStat(repo, 'a.txt', 'AAAA\n'); // assume-unchanged, same size and time
    write(repo, 'b.txt', 'a longer edit\n'); // skip-worktree, present
    unlinkSync(path.join(repo, 'c.txt')); // assume-unchanged, removed: a deletion
    unlinkSync(path.join(repo, 'sparse.txt')); // skip-worktree, absent: a sparse checkout's, not a change
    chmodSync(path.join(repo, 'run.sh'), 0o755); // the executable bit
    unlinkSync(path.join(repo, 'link'));
    symlinkSync('b.txt', path.join(repo, 'link')); // a symlink pointed elsewhere
    // Not edits: same.txt and d.txt untouched; upper.txt's clean filter gives the index's content.
    assert.equal(git(repo, 'status', '--porcelain'), '', 'git status shows none of them');

    assert.deepEqual(await edited(repo), ['a.txt', 'b.txt', 'c.txt', 'link', 'run.sh']);
    const changes = await localChanges(repo);
    assert.deepEqual(changes.tracked.sort(), ['a.txt', 'b.txt', 'c.txt', 'link', 'run.sh']);
  });

  it('commit everything commits the hidden edits and flags the files again', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 'config.json': '{"a":1}\n', 'local.env': 'X=1\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    git(wt, 'update-index', '--assume-unchanged', 'config.json');
    git(wt, 'update-index', '--skip-worktree', 'local.env');
    editKeepingStat(wt, 'config.json', '{"a":2}\n');
    write(wt, 'local.env', 'X=2\nY=3\n');
    write(wt, 'new.txt', 'new\n');

    const head = await commitAllWork(wt, 'Agent work', 'paddock/agent');
    assert.equal(git(wt, 'show', `${head}:config.json`), '{"a":2}');
    assert.equal(git(wt, 'show', `${head}:local.env`), 'X=2\nY=3');
    assert.equal(git(wt, 'show', `${head}:new.txt`), 'new');
    const tags = Object.fromEntries(git(wt, 'ls-files', '-v').split('\n').map((l) => [l.slice(2), l[0]]));
    assert.equal(tags['config.json'], 'h', 'assume-unchanged again');
    assert.equal(tags['local.env'], 'S', 'skip-worktree again');
    assert.equal(readFileSync(path.join(wt, 'config.json'), 'utf8'), '{"a":2}\n', 'the files are untouched');
    assert.deepEqual(await edited(wt), []);
  });

  it("apply refuses to overwrite the person's hidden edit, listing it, and changes nothing", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 'settings.txt': 'one\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, 'settings.txt', 'the agent\n');
    git(repo, 'update-index', '--assume-unchanged', 'settings.txt');
    editKeepingStat(repo, 'settings.txt', 'mine');
    const state = await worktreeStateCommit(wt, 'state');
    await assert.rejects(applyCommitToWorktree(repo, state, 'Agent work'), (e: PaddockError) => e.code === 'LOCAL_CHANGES' && /your local changes to settings\.txt/.test(e.message));
    assert.equal(readFileSync(path.join(repo, 'settings.txt'), 'utf8'), 'mine', "the person's edit is kept");
  });

  it('update from base refuses while the agent has a hidden edit, and changes nothing', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 'settings.txt': 'one\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(repo, 'README.md', 'base moved\n');
    git(repo, 'commit', '-q', '-am', 'base moves');
    git(wt, 'update-index', '--skip-worktree', 'settings.txt');
    write(wt, 'settings.txt', 'agent edit\n');
    const head = git(wt, 'rev-parse', 'HEAD');
    await assert.rejects(updateFromBase(wt, 'main', 'main', { rebase: false }), (e: PaddockError) => /settings\.txt/.test(e.message));
    assert.equal(git(wt, 'rev-parse', 'HEAD'), head);
    assert.equal(readFileSync(path.join(wt, 'settings.txt'), 'utf8'), 'agent edit\n');
  });
});
