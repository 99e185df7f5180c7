/**
 * Bug 157: in a sparse checkout `git add` refuses, for the whole run, a file written outside the
 * sparse patterns (exit 1: "matched paths that exist outside of your sparse-checkout definition"),
 * so one such file failed every capture, Clean Up Anyway included. Each case is captured, removed
 * and restored, and must come back file for file and say in `git status` what it said before.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence, type CaptureOptions } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

/** What git says of the worktree: status with untracked and ignored files, and the index's tags (S: skip-worktree). */
function gitSays(dir: string): { status: string; tags: string } {
  return { status: git(dir, 'status', '--porcelain=v2', '--branch', '--untracked-files=all', '--ignored'), tags: git(dir, 'ls-files', '-v') };
}

describe('git: a sparse checkout with files outside its patterns is captured and restored', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'a/x.txt': 'ax\n', 'b/y.txt': 'by\n', 'b/deep/z.txt': 'z\n', 'docs/guide.md': 'guide\n', '.gitignore': '.env\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  async function roundTrip(): Promise<string> {
    const before = gitSays(wt);
    const files = treeState(wt);
    const options: CaptureOptions = { repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' };
    await captureEvidence(options);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assertSameState(treeState(restored), files);
    assert.deepEqual(gitSays(restored), before);
    return restored;
  }

  for (const [mode, set] of [
    ['cone', ['--cone', 'a']],
    ['non-cone', ['--no-cone', '/*', '!/b/', '!/docs/']],
  ] as const) {
    it(`${mode}: a new file in a folder the patterns leave out, and a left-out file written back and edited`, async () => {
      git(wt, 'sparse-checkout', 'set', ...set);
      assert.equal(existsSync(path.join(wt, 'b/y.txt')), false, 'the fixture leaves b/ out');
      write(wt, 'b/new.txt', 'new, outside the sparse patterns\n');
      write(wt, 'b/y.txt', 'by, written back and edited\n');
      write(wt, 'docs/added.md', 'a new folder left out\n');
      write(wt, 'a/x.txt', 'ax edited inside\n');
      const restored = await roundTrip();
      assert.equal(readFileSync(path.join(restored, 'b/new.txt'), 'utf8'), 'new, outside the sparse patterns\n');
      assert.equal(existsSync(path.join(restored, 'b/deep/z.txt')), false, 'what the patterns left out stays out');
      assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:b/deep/z.txt'), 'z', 'and the snapshot still holds it');
    });
  }

  it('a left-out file deleted is no deletion, and a tracked file inside deleted is one', async () => {
    git(wt, 'sparse-checkout', 'set', '--cone', 'a');
    write(wt, 'b/new.txt', 'outside\n');
    rmSync(path.join(wt, 'a/x.txt'));
    await roundTrip();
    assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:b/y.txt'), 'by');
    assert.equal(git(repo, 'ls-tree', '--name-only', 'refs/paddock/snapshots/job1', 'a/x.txt'), '');
  });
});
