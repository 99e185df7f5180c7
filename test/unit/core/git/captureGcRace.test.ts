/**
 * A `git prune --expire=now` (alone, or a gc's) that read the refs before a capture wrote its
 * snapshot ref deletes the snapshot's loose objects after it, at any time until it ends (bug 139):
 * the capture had already said the work was kept. The prune is played with real parts: a real `git
 * prune --expire=now` whose view of the refs is the repository's before the snapshot ref (a repository
 * sharing the objects, holding the branches only), run after the capture returned, as a prune that
 * had read the refs earlier and deletes late does.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { writeSnapshotRef } from '../../../../src/core/git/snapshotObjects';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: a prune that deletes while the snapshot is written (bug 139)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
  });

  /** A prune whose view of the refs was taken before the snapshot ref was written. */
  const pruneWithOldView = () => {
    const view = sb.path('view.git');
    git(sb.dir, 'init', '-q', '--bare', view);
    rmSync(path.join(view, 'objects'), { recursive: true, force: true });
    symlinkSync(path.join(repo, '.git', 'objects'), path.join(view, 'objects'));
    for (const branch of ['main', 'paddock/job1']) git(view, 'update-ref', `refs/heads/${branch}`, git(repo, 'rev-parse', branch));
    git(view, 'prune', '--expire=now');
  };
  const refOf = (ref: string): string | null => {
    try {
      return git(repo, 'rev-parse', '-q', '--verify', ref);
    } catch {
      return null;
    }
  };
  /** How many objects the snapshot names are gone (Infinity: the commit itself). */
  const missingOf = (sha: string): number => {
    try {
      return git(repo, 'rev-list', '--objects', '--missing=print', sha).split('\n').filter((l) => l.startsWith('?')).length;
    } catch {
      return Infinity;
    }
  };
  const patchPath = () => sb.path('store', 'evidence', 'snapshot.patch');
  const capture = () => captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: patchPath(), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });

  it('a prune that read the refs before the snapshot ref and deletes after the capture returned deletes nothing of it', async () => {
    write(wt, 'new.txt', 'work\n');
    write(wt, 'README.md', 'edited\n');
    mkdirSync(sb.path('store'), { recursive: true });
    const ev = await capture();
    pruneWithOldView();
    // Before: the capture's loose objects went (the commit itself: "bad object").
    assert.equal(missingOf(ev.snapshotSha), 0);
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'work');
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:README.md`), 'edited');
    // An ordinary gc afterwards keeps it (the ref is there), and one after the ref is deleted lets it go.
    git(repo, 'gc', '--quiet', '--prune=now');
    assert.equal(missingOf(ev.snapshotSha), 0);
    git(repo, 'update-ref', '-d', 'refs/paddock/snapshots/job1');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '--quiet', '--prune=now');
    assert.equal(missingOf(ev.snapshotSha), Infinity, 'the snapshot goes with its ref');
  });

  it('an object of the snapshot already deleted when the ref is written: it fails, nothing claimed, the ref goes back', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    const ref = 'refs/paddock/snapshots/job1';
    const earlier = execFileSync('git', ['commit-tree', `${head}^{tree}`, '-p', head], { cwd: repo, input: 'earlier\n', encoding: 'utf8' }).trim();
    await writeSnapshotRef({ repo, commonDir: path.join(repo, '.git'), ref, sha: earlier, before: [head] });
    writeFileSync(sb.path('work.txt'), 'the agent work\n');
    const blob = git(repo, 'hash-object', '-w', sb.path('work.txt'));
    const tree = execFileSync('git', ['mktree'], { cwd: repo, input: `100644 blob ${blob}\twork.txt\n`, encoding: 'utf8' }).trim();
    const sha = execFileSync('git', ['commit-tree', tree, '-p', head], { cwd: repo, input: 'snap\n', encoding: 'utf8' }).trim();
    rmSync(path.join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2))); // what a prune did before the ref was there
    await assert.rejects(writeSnapshotRef({ repo, commonDir: path.join(repo, '.git'), ref, sha, before: [head] }), /objects of the snapshot could not be kept in .*a git gc or prune .*; nothing was removed/);
    assert.equal(refOf(ref), earlier, 'the ref names the earlier, whole snapshot again');
  });

  it("a blobless partial clone with a commit only the worktree's reflog knows: its cleanup captures (blobs never fetched are not asked for)", async () => {
    const up = sb.repo({ 'README.md': 'r\n' }, 'up');
    git(up, 'config', 'uploadpack.allowFilter', 'true');
    git(up, 'checkout', '-q', '-b', 'feature');
    for (let i = 0; i < 3; i++) {
      write(up, 'f.txt', `v${i}\n`);
      git(up, 'add', 'f.txt');
      git(up, 'commit', '-qm', `c${i}`);
    }
    git(up, 'checkout', '-q', 'main');
    git(sb.dir, 'clone', '-q', '--filter=blob:none', `file://${up}`, 'partial');
    const clone = sb.path('partial');
    git(clone, 'config', 'user.name', 'Test');
    git(clone, 'config', 'user.email', 'test@example.invalid');
    const pwt = sb.path('pwt');
    git(clone, 'worktree', 'add', '-q', '-b', 'paddock/job2', pwt, 'main');
    // The agent looked at the feature branch's tip, then went back; upstream dropped the branch: only the reflog knows it.
    git(pwt, 'checkout', '-q', 'origin/feature');
    git(pwt, 'checkout', '-q', 'paddock/job2');
    git(clone, 'update-ref', '-d', 'refs/remotes/origin/feature');
    write(pwt, 'work.txt', 'the agent work\n');
    const run = () => captureEvidence({ repo: clone, worktree: pwt, jobId: 'job2', patchPath: sb.path('store2', 'evidence', 'snapshot.patch'), baseSha: git(clone, 'rev-parse', 'main'), branch: 'paddock/job2' });
    // Before: "3 object(s) of the snapshot were deleted …" on every attempt.
    for (let i = 0; i < 2; i++) {
      const ev = await run();
      assert.ok(ev.summary.keptCommits >= 1, 'the reflog-only commit is kept');
      assert.equal(git(clone, 'show', `${ev.snapshotSha}:work.txt`), 'the agent work');
    }
  });

  it('commits only a worktree-private ref names (refs/worktree, refs/bisect, refs/rewritten) are packed too: a prune in the person\'s checkout does not walk them', async () => {
    // git 2.39's prune run in the person's checkout walks its own refs and every worktree's HEAD and reflogs,
    // not another worktree's refs/worktree/*, refs/bisect/*, refs/rewritten/* (checked): left out of the pack, they were deleted.
    const saved = ['refs/worktree/saved', 'refs/bisect/bad', 'refs/rewritten/onto'].map((ref) => {
      const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: wt, input: `only ${ref} names this\n`, encoding: 'utf8' }).trim();
      const tree = execFileSync('git', ['mktree'], { cwd: wt, input: `100644 blob ${blob}\tsaved.txt\n`, encoding: 'utf8' }).trim();
      const commit = execFileSync('git', ['commit-tree', tree, '-p', 'HEAD'], { cwd: wt, input: `${ref}\n`, encoding: 'utf8' }).trim();
      git(wt, 'update-ref', ref, commit);
      return commit;
    });
    write(wt, 'new.txt', 'work\n');
    const ev = await capture();
    assert.ok(ev.summary.keptCommits >= saved.length, 'the commits are kept in the snapshot');
    pruneWithOldView();
    // Before: the three commits (their trees, their blobs) deleted: the snapshot said kept what a prune had deleted.
    for (const commit of saved) assert.equal(git(repo, 'cat-file', '-t', commit), 'commit', `${commit} is still there`);
    const missing = git(repo, 'rev-list', '--objects', '--missing=print', ev.snapshotSha).split('\n').filter((l) => l.startsWith('?'));
    assert.deepEqual(missing, [], 'objects of the snapshot deleted after the capture said they were kept');
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'work');
  });
});
