/**
 * `git apply` writes the person's files through their smudge filters (bug 138's review). Stopped at
 * its bound, it had written some files and perhaps cut one short, and the rejection skipped the undo
 * that a failed apply runs: the checkout was left half-patched. And the stall watch stopped, after a
 * minute, an apply whose smudge filter waits quietly on a slow service (S state, no CPU): the same
 * half-patched checkout, of an apply that was working. Real filters, real git.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyCommitToWorktree, worktreeStateCommit } from '../../../../src/core/git';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: an apply cut short puts the person\'s files back; a slow smudge filter is let finish', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ '1.txt': 'a\n', '2.bin': 'x\n', '.gitattributes': '*.bin filter=slow\n' });
    git(repo, 'config', 'filter.slow.clean', 'cat');
    wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, '1.txt', 'A\n');
    write(wt, '2.bin', 'y\n');
  });
  const read = (rel: string) => readFileSync(path.join(repo, rel), 'utf8');

  it('stopped at its bound mid-write: every file it touched is put back, and it says so', async () => {
    // The first smudge (the apply's, on 2.bin, after 1.txt is written) hangs; the undo's runs at once.
    const mark = sb.path('smudged-once');
    git(repo, 'config', 'filter.slow.smudge', `if [ -e '${mark}' ]; then cat; else touch '${mark}'; sleep 30; cat; fi`);
    const state = await worktreeStateCommit(wt, 'state');
    const err = await applyCommitToWorktree(repo, state, 'Agent work', { applyTimeoutMs: 2000 }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof Error, 'the apply failed');
    // Before: the bound's own message, and 1.txt left as "A" (no undo ran).
    assert.match(err.message, /Could not apply Agent work in .*: git apply .*; nothing was changed\./);
    assert.equal(read('1.txt'), 'a\n');
    assert.equal(read('2.bin'), 'x\n');
    assert.equal(git(repo, 'status', '--porcelain'), '');
  });

  it('a smudge filter that waits quietly for over a minute (a slow service) is not judged stalled: the apply completes', async () => {
    // No CPU, nothing running, for 62 s: past GIT_STALL_MS (60 s). Before: stopped at 60 s, half-patched.
    git(repo, 'config', 'filter.slow.smudge', 'sleep 62; cat');
    const state = await worktreeStateCommit(wt, 'state');
    const files = await applyCommitToWorktree(repo, state, 'Agent work');
    assert.deepEqual(files.sort(), ['1.txt', '2.bin']);
    assert.equal(read('1.txt'), 'A\n');
    assert.equal(read('2.bin'), 'y\n');
  });
});
