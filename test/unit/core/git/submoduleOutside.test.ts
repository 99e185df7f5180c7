/**
 * Bug 202: a submodule in the agent's worktree (its git dir in the worktree's private git dir,
 * `modules/sub`) with a linked worktree of its own outside (`git -C sub worktree add ../elsewhere`).
 * That checkout's registration lives in `modules/sub/worktrees/<id>`, removed with the agent's
 * worktree: git fails there until a restore. Real git, a real submodule, capture, removal, restore.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { outsideWorktreesNow } from '../../../../src/core/operations/cleanupConfirm';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

/** `git status` in `dir`, or FAILED. */
function status(dir: string): string {
  try {
    return execFileSync('git', ['status', '--short', '--branch'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return 'FAILED';
  }
}

describe('git: a submodule\'s own linked worktree outside the agent\'s (bug 202)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let outside: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    const upstream = sb.repo({ 'lib.txt': 'lib\n' }, 'upstream');
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'sub');
    const sub = `${wt}/sub`;
    outside = sb.path('outside');
    git(sub, 'worktree', 'add', '-q', '-b', 'side', outside);
    write(outside, 'c.txt', 'c\n');
    git(outside, 'add', 'c.txt');
    git(outside, ...WHO, 'commit', '-q', '-m', 'only on side');
    write(outside, 'lib.txt', 'edited outside\n');
  });

  it('the confirmation and the summary name it', async () => {
    const now = await outsideWorktreesNow(wt);
    assert.deepEqual(now.map((o) => [o.repo, o.folder, o.branch]), [['sub', outside, 'side']], 'named before the cleanup');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    const words = ev.summary.foreignWorktrees ?? [];
    assert.equal(words.filter((w) => w.includes('outside')).length, 1, `named in the summary: ${words.join(' | ')}`);
  });

  for (const where of ['at the agent\'s path', 'elsewhere (--to)']) {
    it(`a restore ${where} links it again, its commit and its change as they were`, async () => {
      const before = status(outside);
      await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
      await removeWorktree(repo, wt);
      assert.equal(status(outside), 'FAILED', 'git fails there until the restore, as the summary says');
      const target = where.startsWith('at') ? wt : sb.path('elsewhere');
      const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });
      // Said since bug 158: the submodule's git dir comes back as its own .git folder; git cannot absorb
      // one with linked worktrees, so the sentence no longer advises it.
      assert.deepEqual(result.problems, ['sub: its git dir came back as its own .git folder, not in the worktree\'s git dir where it was (git works in it as it is; git submodule absorbgitdirs refuses to move it while it has linked worktrees).']);
      assert.throws(() => execFileSync('git', ['submodule', 'absorbgitdirs'], { cwd: target, stdio: ['ignore', 'pipe', 'pipe'] }), (err: { stderr: Buffer }) => /not supported/.test(String(err.stderr)), 'as git itself says');
      assert.equal(status(outside), before);
      assert.equal(git(outside, 'log', '--format=%s', '-1'), 'only on side');
      assert.match(git(`${target}/sub`, 'worktree', 'list'), /outside\s+[0-9a-f]+ \[side\]/);
    });
  }

  it('the submodule\'s own unpushed commit, uncommitted change and ignored file come back byte for byte', async () => {
    const sub = `${wt}/sub`;
    write(sub, 'new.txt', 'unpushed\n');
    git(sub, 'add', 'new.txt');
    git(sub, ...WHO, 'commit', '-q', '-m', 'unpushed in sub');
    const tip = git(sub, 'rev-parse', 'HEAD');
    write(sub, 'lib.txt', 'uncommitted\n');
    write(sub, '.gitignore', 'ignored.bin\n');
    write(sub, 'ignored.bin', Buffer.from([0, 255, 1, 254]));
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const target = sb.path('elsewhere');
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });
    const back = `${target}/sub`;
    assert.equal(git(back, 'rev-parse', 'HEAD'), tip);
    assert.equal(git(back, 'status', '--short'), 'M lib.txt\n?? .gitignore');
    assert.equal(readFileSync(`${back}/lib.txt`, 'utf8'), 'uncommitted\n');
    assert.deepEqual([...readFileSync(`${back}/ignored.bin`)], [0, 255, 1, 254]);
  });
});
