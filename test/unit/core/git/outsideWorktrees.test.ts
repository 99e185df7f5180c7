/**
 * Bug 170: a repository inside the agent's worktree with a linked worktree outside it. That
 * checkout's git data lives in the nested repository's `.git`, archived and removed with the agent's
 * worktree: nothing was said, git failed there afterwards, and a restore elsewhere (`--to`) left it
 * failing and said nothing. Now the summary names it and restore links it again, or says it did not.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

/** `git status` in `dir`, or git's error. */
function status(dir: string): string {
  try {
    return execFileSync('git', ['status', '--short', '--branch'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    return `FAILED ${String((err as { stderr: string }).stderr).trim()}`;
  }
}

describe('git: a nested repository\'s linked worktree outside the agent\'s worktree (bug 170)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let outside: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
    const inner = path.join(wt, 'inner');
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    outside = sb.path('outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);
    write(outside, 'c.txt', 'c\n');
    git(outside, 'add', 'c.txt');
    git(outside, ...WHO, 'commit', '-q', '-m', 'only on side');
    write(outside, 'x.txt', 'edited outside\n');
    write(outside, 'staged.txt', 'staged\n');
    git(outside, 'add', 'staged.txt');
  });

  async function capture(): Promise<string[]> {
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    return ev.summary.foreignWorktrees ?? [];
  }
  const restore = (target: string) => restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it('the cleanup\'s summary names it, and a restore elsewhere links it again as it was', async () => {
    const before = status(outside);
    const words = await capture();
    assert.equal(words.length, 1, 'named in the summary');
    assert.match(words[0]!, /^inner: a repository in the agent's worktree with a linked worktree outside it, .*outside \(on side\).*paddock restore/);
    assert.match(status(outside), /^FAILED/, 'git fails there until the restore');
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems, []);
    assert.equal(status(outside), before, 'its branch, staged and unstaged changes as they were');
    assert.equal(git(outside, 'log', '--format=%s', '-1'), 'only on side');
    assert.match(git(path.join(sb.path('elsewhere'), 'inner'), 'worktree', 'list'), /outside\s+[0-9a-f]+ \[side\]/);
  });

  it('restored at the agent\'s path it works again, with nothing to repair', async () => {
    const before = status(outside);
    await capture();
    const result = await restore(wt);
    assert.deepEqual(result.problems, []);
    assert.equal(status(outside), before);
  });

  it('one gone since the cleanup is said, not left unsaid', async () => {
    await capture();
    rmSync(outside, { recursive: true, force: true });
    const result = await restore(sb.path('elsewhere'));
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0]!, /^inner's linked worktree .*outside is gone/);
  });

  it('a capture that stops for consent names it too: consent is given knowing git will fail there', async () => {
    const base = git(repo, 'rev-parse', 'main');
    await assert.rejects(
      captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1', archiveLimitBytes: 1 }),
      (err: Error) => /^Nothing was removed: .*Also: inner: a repository in the agent's worktree with a linked worktree outside it, .*outside \(on side\)/s.test(err.message),
    );
  });
});

