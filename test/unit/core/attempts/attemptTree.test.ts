/** What an attempt added, read from a real repository's patch: file names exactly as git lists them. */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { addedLines, fileChanges, worktreeTree } from '../../../../src/core/attempts/attemptTree';
import { decodeName } from '../../../../src/core/git/pathBytes';
import { git, Sandbox, useGitSandbox, write } from '../git/gitTestUtil';

describe('attempts: added lines per file', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  // Bug: a name git quotes (octal escapes for é) was read with JSON.parse, which threw: Compare
  // Attempts showed the whole attempt as "changes unavailable"; a name with a space kept git's TAB.
  it('names files with accents, spaces, quotes, backslashes, tabs and non-UTF-8 bytes as git diff -z does', async () => {
    const repo = sb.repo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const names = ['café.md', 'a b.txt', 'say "hi".txt', 'back\\slash', 'tab\there', '日本.txt'];
    for (const name of names) write(repo, name, `line of ${name}\n`);
    const raw = Buffer.concat([Buffer.from('raw-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]);
    writeFileSync(Buffer.concat([Buffer.from(repo + path.sep), raw]), 'raw line\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'names');
    const head = git(repo, 'rev-parse', 'HEAD');
    const added = await addedLines(repo, base, head);
    for (const name of names) assert.deepEqual(added.get(name), [`line of ${name}`], name);
    assert.deepEqual(added.get(decodeName(raw)), ['raw line']);
    assert.equal(added.size, names.length + 1);
    const listed = (await fileChanges(repo, base, head)).map((f) => f.path).filter((p) => !p.startsWith('raw-'));
    assert.deepEqual([...added.keys()].filter((p) => !p.startsWith('raw-')).sort(), listed.sort());
  });

  // Bug 81: an added line that itself begins "++ " shows as "+++ ..." in the patch and was read as
  // the next file's header: the lines after it were filed under a made-up file name.
  it('reads an added line beginning with "++ " or "diff --git" as a line, not as a file header', async () => {
    const repo = sb.repo();
    const base = git(repo, 'rev-parse', 'HEAD');
    write(repo, 'notes.md', 'first\n++ counter\n+++ b/other.txt\ndiff --git a/x b/x\nlast\n');
    write(repo, 'second.txt', 'second file\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'plus lines');
    const added = await addedLines(repo, base, git(repo, 'rev-parse', 'HEAD'));
    assert.deepEqual([...added.keys()].sort(), ['notes.md', 'second.txt']);
    assert.deepEqual(added.get('notes.md'), ['first', '++ counter', '+++ b/other.txt', 'diff --git a/x b/x', 'last']);
    assert.deepEqual(added.get('second.txt'), ['second file']);
  });

  // Bug 157: in a sparse checkout git's `add -A` refused, for the whole add, a file written outside the
  // patterns: Compare Attempts had no tree, and the check's guard could not read the worktree.
  it('reads a sparse checkout with a file written outside its patterns, and keeps what the patterns leave out', async () => {
    const repo = sb.repo({ 'kept/in.txt': 'in\n', 'left/out.txt': 'out\n' });
    git(repo, 'sparse-checkout', 'set', '--cone', 'kept');
    write(repo, 'left/new.txt', 'written outside the patterns\n');
    const { tree } = await worktreeTree(repo);
    assert.equal(git(repo, 'show', `${tree}:left/new.txt`), 'written outside the patterns');
    assert.equal(git(repo, 'show', `${tree}:left/out.txt`), 'out');
  });

  // Bug 138's review: the stall watch stopped after a minute the read of a worktree whose clean filter waits quietly on a slow service.
  it('a clean filter that waits quietly for over a minute (a slow service) is not judged stalled: the worktree is read', async function () {
    this.timeout(200_000);
    const repo = sb.repo({ '.gitattributes': '*.bin filter=slow\n' });
    // No CPU, nothing running, for 62 s: past GIT_STALL_MS (60 s). Before: stopped at 60 s, Compare Attempts had no tree.
    git(repo, 'config', 'filter.slow.clean', 'sleep 62; cat');
    write(repo, 'data.bin', 'data\n');
    const { tree } = await worktreeTree(repo);
    assert.equal(git(repo, 'show', `${tree}:data.bin`), 'data');
  });
});

