/**
 * A `rebase --update-refs` stopped on a conflict, whose update-refs list names the agent's own
 * branch (stacked under the branch being rebased), cleaned up with the branch deleted (bug 98):
 * restore took the branch for gone, checked it out at HEAD's commit in the middle of the rebase,
 * and `rebase --continue` committed onto it and then failed to move it. Now the branch comes back
 * at the tip the rebase expects, HEAD stays detached, and finishing the rebase moves both branches.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { deleteBranch } from '../../../../src/core/git/branch';
import { updateRefsBranches } from '../../../../src/core/git/updateRefs';
import { Sandbox, commitIn, git, useGitSandbox, write } from './gitTestUtil';

describe('git: restore of a rebase --update-refs stopped half-way re-creates the branches it moves', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'f.txt': 'base\n' });
    wt = sb.agentWorktree(repo);
  });

  it('brings the deleted agent branch back at its old tip, HEAD detached, and --continue moves it', async () => {
    commitIn(wt, 'g.txt', 'a1\n', 'A1');
    const oldTip = git(wt, 'rev-parse', 'HEAD');
    git(wt, 'checkout', '-q', '-b', 'top');
    commitIn(wt, 'f.txt', 'a2\n', 'A2');
    git(wt, 'checkout', '-q', '-b', 'upstream', 'main');
    commitIn(wt, 'f.txt', 'upstream\n', 'U');
    git(wt, 'checkout', '-q', 'top');
    assert.throws(() => git(wt, 'rebase', '--update-refs', 'upstream'), 'stops on the conflict in f.txt');
    const updateRefs = readFileSync(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'rebase-merge/update-refs'), 'utf8').split('\n');
    assert.deepEqual(updateRefs.slice(0, 2), ['refs/heads/paddock/job1', oldTip]);
    const rebasedTip = updateRefs[2]!;

    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    await deleteBranch(repo, 'paddock/job1', { force: true });
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: sb.path('restored'), branch: 'paddock/job1', branchDeletedByCleanup: true });
    const restored = result.path;
    assert.ok(result.problems.some((p) => /^the branch paddock\/job1, which the cleanup had deleted, is re-created at .* \(--update-refs\)/.test(p)), result.problems.join('\n'));
    assert.throws(() => git(restored, 'symbolic-ref', '-q', 'HEAD'), 'HEAD stays detached, as the rebase left it');
    assert.equal(git(repo, 'rev-parse', 'refs/heads/paddock/job1'), oldTip);

    write(restored, 'f.txt', 'resolved\n');
    git(restored, 'add', 'f.txt');
    const out = execFileSync('git', ['rebase', '--continue'], { cwd: restored, env: { ...process.env, GIT_EDITOR: 'true' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.doesNotMatch(out, /Failed to update/);
    assert.equal(git(repo, 'rev-parse', 'refs/heads/paddock/job1'), rebasedTip, 'moved where the rebase put it');
    assert.equal(git(repo, 'rev-parse', 'refs/heads/top'), git(restored, 'rev-parse', 'HEAD'));
    assert.equal(git(restored, 'rev-parse', 'HEAD^'), rebasedTip);
  });

  it('captures a rebase stopped before it reached the branch (its new tip still the null id), and finishing it after restore moves the branch', async () => {
    commitIn(wt, 'f.txt', 'a1\n', 'A1 (conflicts)');
    const oldTip = git(wt, 'rev-parse', 'HEAD');
    git(wt, 'checkout', '-q', '-b', 'top');
    commitIn(wt, 'g.txt', 'a2\n', 'A2');
    git(wt, 'checkout', '-q', '-b', 'upstream', 'main');
    commitIn(wt, 'f.txt', 'upstream\n', 'U');
    git(wt, 'checkout', '-q', 'top');
    assert.throws(() => git(wt, 'rebase', '--update-refs', 'upstream'));
    const updateRefs = readFileSync(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'rebase-merge/update-refs'), 'utf8').split('\n');
    assert.deepEqual(updateRefs.slice(0, 3), ['refs/heads/paddock/job1', oldTip, '0'.repeat(40)]);

    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    await deleteBranch(repo, 'paddock/job1', { force: true });
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: sb.path('restored'), branch: 'paddock/job1', branchDeletedByCleanup: true });
    write(result.path, 'f.txt', 'resolved\n');
    git(result.path, 'add', 'f.txt');
    execFileSync('git', ['rebase', '--continue'], { cwd: result.path, env: { ...process.env, GIT_EDITOR: 'true' }, stdio: 'pipe' });
    assert.equal(git(repo, 'rev-parse', 'refs/heads/paddock/job1'), git(result.path, 'rev-parse', 'HEAD^'));
    assert.equal(git(repo, 'show', 'paddock/job1:f.txt'), 'resolved');
  });

  it('re-creates only the branch the cleanup deleted: another the rebase moves, deleted by the person since, stays deleted and is said so', async () => {
    commitIn(wt, 'g.txt', 'a1\n', 'A1');
    git(wt, 'branch', 'stack');
    git(wt, 'checkout', '-q', '-b', 'top');
    commitIn(wt, 'f.txt', 'a2\n', 'A2');
    git(wt, 'checkout', '-q', '-b', 'upstream', 'main');
    commitIn(wt, 'f.txt', 'upstream\n', 'U');
    git(wt, 'checkout', '-q', 'top');
    assert.throws(() => git(wt, 'rebase', '--update-refs', 'upstream'));
    const listed = readFileSync(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'rebase-merge/update-refs'), 'utf8');
    assert.match(listed, /refs\/heads\/stack\n/);
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    await deleteBranch(repo, 'paddock/job1', { force: true });
    git(repo, 'branch', '-D', 'stack');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: sb.path('restored'), branch: 'paddock/job1', branchDeletedByCleanup: true });
    assert.throws(() => git(repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/stack'), 'the person\'s deletion stands');
    assert.ok(result.problems.some((p) => /^the branch stack .*deleted since the cleanup, not by it/.test(p)), result.problems.join('\n'));
    assert.ok(!result.problems.some((p) => /branch stack, which the cleanup had deleted/.test(p)));
    assert.ok(result.problems.some((p) => /^the branch paddock\/job1, which the cleanup had deleted, is re-created/.test(p)), result.problems.join('\n'));
  });

  it('the same for the branch a stopped rebase returns to: one the person deleted after the cleanup stays deleted', async () => {
    git(wt, 'checkout', '-q', '-b', 'side');
    commitIn(wt, 'f.txt', 'side\n', 'S');
    git(wt, 'checkout', '-q', '-b', 'upstream', 'main');
    commitIn(wt, 'f.txt', 'upstream\n', 'U');
    git(wt, 'checkout', '-q', 'side');
    assert.throws(() => git(wt, 'rebase', 'upstream'));
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    await deleteBranch(repo, 'paddock/job1', { force: true });
    git(repo, 'branch', '-D', 'side');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: sb.path('restored'), branch: 'paddock/job1', branchDeletedByCleanup: true });
    assert.throws(() => git(repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/side'), 'the person\'s deletion stands');
    assert.ok(result.problems.some((p) => /^the branch side the rebase stopped half-way returns to was deleted since the cleanup, not by it/.test(p)), result.problems.join('\n'));
  });

  it('reads the branches from the update-refs file, not a null tip or a ref outside refs/heads', () => {
    const b64 = (t: string) => Buffer.from(t).toString('base64');
    const a = '1'.repeat(40);
    const text = `refs/heads/x\n${a}\n${'0'.repeat(40)}\nrefs/heads/y\n${'0'.repeat(40)}\n${a}\nrefs/tags/t\n${a}\n${a}\n`;
    assert.deepEqual(updateRefsBranches([{ path: 'rebase-merge/update-refs', base64: b64(text) }]), [{ ref: 'refs/heads/x', old: a }]);
    assert.deepEqual(updateRefsBranches([]), []);
  });
});
