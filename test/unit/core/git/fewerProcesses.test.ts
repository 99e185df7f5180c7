/**
 * Cleanup's git work with as few git processes as it needs: ref names judged
 * without git when they are plain (and exactly as git judges them), the patch's
 * file count read from the patch, and capture (verified) + removal + branch
 * deletion in eighteen git processes, counted from a real run with GIT_TRACE2_EVENT.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { branchSafety, deleteBranch } from '../../../../src/core/git/branch';
import { captureEvidence, countPatchPaths } from '../../../../src/core/git/evidence';
import { checkBranchName, isPlainValidRef, isValidRefName } from '../../../../src/core/git/repo';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, binary, git, useGitSandbox, write } from './gitTestUtil';

const NAMES = [
  'a', 'paddock/abc123', 'a/b.c', 'x.lock', 'a.lock/b', 'foo/bar.locked', 'a..b', '.a', 'a/.b', 'a/', '/a', 'a//b', 'a.',
  'HEAD', 'refs/heads/x', '-a', 'a-', 'a b', 'a@{b', '@', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', 'ü', 'a/b/c.d-e_f',
];

describe('git: fewer git processes for cleanup', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo();
  });

  it('judges branch and ref names exactly as git check-ref-format does', async () => {
    for (const name of NAMES) {
      const gitBranch = spawnSync('git', ['check-ref-format', '--branch', name], { cwd: repo }).status === 0 && !name.startsWith('-');
      const ours = await checkBranchName(repo, name).then(() => true, () => false);
      assert.equal(ours, gitBranch, `branch name ${JSON.stringify(name)}`);
      const ref = `refs/x/${name}`;
      const gitRef = spawnSync('git', ['check-ref-format', ref], { cwd: repo }).status === 0;
      assert.equal(await isValidRefName(repo, ref), gitRef, `ref ${JSON.stringify(ref)}`);
      // The fast path never accepts what git refuses.
      if (isPlainValidRef(ref)) assert.ok(gitRef, `fast path accepted ${ref}`);
    }
  });

  it('counts the changed paths from the patch as diff-tree --name-only --no-renames does', async () => {
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/count', wt, 'main');
    const base = git(repo, 'rev-parse', 'main');
    write(wt, 'renamed file with space.txt', readFileSync(`${repo}/README.md`, 'utf8'));
    rmSync(`${wt}/README.md`);
    write(wt, 'tab\there.txt', 'quoted path\n');
    write(wt, 'blob.bin', binary(64 * 1024, 3));
    write(wt, 'diff --git a/x b/x.txt', 'a path that looks like a header\n+diff --git a/y b/y\n');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'count', patchPath: sb.path('p', 'count.patch'), baseSha: base });
    const tree = git(repo, 'rev-parse', `${ev.snapshotRef}^{tree}`);
    const expected = git(repo, 'diff-tree', '-r', '-z', '--name-only', '--no-renames', base, tree).split('\0').filter(Boolean).length;
    assert.equal(ev.fileCount, expected);
    assert.equal(countPatchPaths(readFileSync(ev.patch, 'latin1')), expected);
    assert.equal(countPatchPaths(''), 0);
  });

  it('captures (verified), removes the worktree and deletes a merged branch in eighteen git processes', async () => {
    const wt = sb.path('wt2');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/tenproc', wt, 'main');
    const base = git(repo, 'rev-parse', 'main');
    write(wt, 'new.txt', 'work\n');
    write(wt, 'README.md', 'edited\n');
    const trace = sb.path('trace.json');
    process.env.GIT_TRACE2_EVENT = trace;
    try {
      const ev = await captureEvidence({ repo, worktree: wt, jobId: 'tenproc', patchPath: sb.path('p', 'ten.patch'), baseSha: base });
      assert.ok(existsSync(ev.patch));
      assert.equal((await removeWorktree(repo, wt)).outcome, 'removed');
      const safety = await branchSafety(repo, 'paddock/tenproc');
      assert.deepEqual(safety, { exists: true, unmergedCommits: 0 });
      await deleteBranch(repo, 'paddock/tenproc', { force: true });
    } finally {
      delete process.env.GIT_TRACE2_EVENT;
    }
    const commands = readFileSync(trace, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; sid: string; argv?: string[] })
      .filter((e) => e.event === 'start' && !e.sid.includes('/'))
      .map((e) => commandOf(e.argv!));
    // Capture: HEAD (and its tree); the agent's own index as a tree, to keep what it staged (write-tree);
    // the index flags to clear (ls-files); add; the tree and its
    // paths (ls-files); the config that says whether git converts bytes (config: with no .gitattributes
    // anywhere, nothing else runs for it); the worktree's own refs and the tips reflog-only commits are
    // judged against (for-each-ref); the commit; the patch, proven by applying it to the base in a
    // scratch index (read-tree, apply, write-tree). Steps that do not depend on each other run side
    // by side, so their order varies; the ref comes only after all of them. Then removal and the branch.
    const capture = ['rev-parse', 'write-tree', 'ls-files', 'add', 'write-tree', 'ls-files', 'config', 'for-each-ref', 'commit-tree', 'diff-tree', 'read-tree', 'apply', 'write-tree'];
    assert.deepEqual(commands.slice(0, capture.length).sort(), [...capture].sort());
    // After the ref, the snapshot's new objects copied into a pack no prune deletes (pack-objects, bug 139).
    assert.deepEqual(commands.slice(capture.length), ['update-ref', 'pack-objects', 'worktree', 'for-each-ref', 'rev-list', 'branch']);
    assert.equal(git(repo, 'branch', '--list', 'paddock/tenproc'), '');
    assert.ok(git(repo, 'rev-parse', 'refs/paddock/snapshots/tenproc'), 'the snapshot stays');
  });
});

/** git's subcommand in a traced argv: past the program and every `-c key=value` Paddock puts first. */
function commandOf(argv: readonly string[]): string {
  let at = 1;
  while (argv[at] === '-c') at += 2;
  return argv[at] ?? '';
}
