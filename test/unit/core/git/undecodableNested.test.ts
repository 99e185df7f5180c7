/**
 * Bug 199: a repository inside the agent's worktree under a folder whose name is not UTF-8
 * (`bad\xff`), with a linked worktree outside it. Node reads names as UTF-8 by default, each invalid
 * byte becoming U+FFFD, and that string names no folder: the walks that find nested `.git` entries,
 * and the reads of their registrations, passed over it. Here with real git, real folders named in
 * bytes, the real capture, removal and restore.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { findNestedGitEntries } from '../../../../src/core/git/nestedGitEntries';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { outsideWorktreesNow } from '../../../../src/core/operations/cleanupConfirm';
import { Sandbox, git, useGitSandbox } from './gitTestUtil';

const BAD = 'bad\udcff'; // `bad` and the byte 0xff, as Paddock carries such a name (pathBytes.ts)

/** `script` in bash with `env`: paths with raw bytes are spelled there, which Node's argv cannot carry. */
function bash(script: string, env: Record<string, string>): string {
  return execFileSync('bash', ['-euc', script], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const WHO = '-c user.name=A -c user.email=a@b.c';

/** `git status` in `dir`, or FAILED. */
function status(dir: string): string {
  try {
    return execFileSync('git', ['status', '--short', '--branch'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return 'FAILED';
  }
}

describe('git: a nested repository under a folder whose name is not UTF-8 (bug 199)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let outside: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
    outside = sb.path('outside');
    bash(`cd "$WT" && mkdir $'bad\\xff' && cd $'bad\\xff' && git init -q -b main inner && cd inner
      printf 'x\\n' > x.txt && git add . && git ${WHO} commit -q -m x
      git worktree add -q -b side "$OUT" && cd "$OUT" && printf 'c\\n' > c.txt && git add c.txt && git ${WHO} commit -q -m 'only on side'
      printf 'edited outside\\n' > x.txt`, { WT: wt, OUT: outside });
  });

  const restore = (target: string) => restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it('the walk for nested .git entries finds it, by its real bytes', async () => {
    const found = await findNestedGitEntries(wt);
    assert.deepEqual(found.nested, [{ path: `${BAD}/inner`, gitFile: false }]);
  });

  it('the confirmation and the cleanup\'s summary name its linked worktree outside, and a restore elsewhere links it again', async () => {
    const before = status(outside);
    const now = await outsideWorktreesNow(wt);
    assert.deepEqual(now.map((o) => [o.repo, o.folder, o.branch]), [[`${BAD}/inner`, outside, 'side']], 'named before the cleanup');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    const words = ev.summary.foreignWorktrees ?? [];
    assert.equal(words.filter((w) => w.includes('linked worktree outside it')).length, 1, `named in the summary: ${words.join(' | ')}`);
    await removeWorktree(repo, wt);
    const elsewhere = sb.path('elsewhere');
    const result = await restore(elsewhere);
    assert.deepEqual(result.problems, []);
    assert.equal(status(outside), before, 'git works there again, its changes as they were');
    assert.equal(bash('cd "$E"/$\'bad\\xff\'/inner && git log --format=%s -1 && cat x.txt', { E: elsewhere }), 'x\nx');
  });

  // nestedLinks.ts: a separate git dir inside the worktree, both under the undecodable folder.
  it('restore elsewhere links a repository whose separate git dir lies in it to the new place', async () => {
    bash(`cd "$WT"/$'bad\\xff' && git init -q -b main --separate-git-dir="$WT"/$'bad\\xff'/gd sep && cd sep
      printf 's\\n' > s.txt && git add . && git ${WHO} commit -q -m s && printf 'edited\\n' > s.txt`, { WT: wt });
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const elsewhere = sb.path('elsewhere');
    const result = await restore(elsewhere);
    assert.deepEqual(result.problems, []);
    const sep = bash('cd "$E"/$\'bad\\xff\'/sep && git status --short && git log --format=%s -1 && cat .git', { E: elsewhere });
    assert.equal(sep, `M s.txt\ns\ngitdir: ${elsewhere}/bad\ufffd/gd`, 'git works in it, on its own git dir in the new place (the byte shown as U+FFFD)');
  });

  // innerWorktrees.ts: the person's repository registers a worktree the agent made under the folder.
  it('a linked worktree the agent made under it is kept, forgotten at cleanup and linked again at restore', async () => {
    bash(`cd "$WT" && git worktree add -q --detach $'bad\\xff'/side && cd $'bad\\xff'/side && printf 'n\\n' > n.txt && git add n.txt && git ${WHO} commit -q -m 'made inside'`, { WT: wt });
    const head = bash('cd "$WT"/$\'bad\\xff\'/side && git rev-parse HEAD', { WT: wt });
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    assert.doesNotMatch(git(repo, 'worktree', 'list', '--porcelain'), /side/, 'its registration forgotten with the agent\'s worktree');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-t', head), 'commit', 'its commit kept');
    const result = await restore(wt);
    assert.deepEqual(result.problems, []);
    assert.equal(bash('cd "$WT"/$\'bad\\xff\'/side && git rev-parse HEAD && git status --short', { WT: wt }), head, 'linked again, at its commit, clean');
  });
});
