/**
 * Bug 177: a restore elsewhere (`restore --to`) of what links by absolute path inside the agent's
 * worktree: a nested repository whose git dir lies apart from its checkout (`git init
 * --separate-git-dir`), and a nested repository's linked worktree inside the agent's worktree.
 * Their `.git` files (and the registration's `gitdir`) named the old place: git failed in the
 * copy, or, with the agent's worktree restored too, acted on the other copy's git data.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

function status(dir: string): string {
  try {
    return execFileSync('git', ['status', '--short', '--branch'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    return `FAILED ${String((err as { stderr: string }).stderr).trim()}`;
  }
}

describe('git: links inside the agent\'s worktree restored elsewhere (bug 177)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
  });

  async function capture(): Promise<void> {
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
  }
  const restore = (target: string) => restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it('a nested repository whose git dir lies apart (--separate-git-dir) works in the copy, on the copy\'s git dir', async () => {
    git(wt, 'init', '-q', '-b', 'main', `--separate-git-dir=${path.join(wt, 'gd')}`, 'sep');
    const sep = path.join(wt, 'sep');
    write(sep, 'x.txt', 'x\n');
    git(sep, 'add', '.');
    git(sep, ...WHO, 'commit', '-q', '-m', 'x');
    write(sep, 'x.txt', 'edited\n');
    write(sep, 'y.txt', 'new\n');
    const before = status(sep);
    await capture();
    const copy = sb.path('elsewhere');
    const result = await restore(copy);
    assert.equal(status(path.join(copy, 'sep')), before);
    assert.deepEqual(['x.txt', 'y.txt'].map((f) => readFileSync(path.join(copy, 'sep', f), 'utf8')), ['edited\n', 'new\n'], 'byte for byte');
    assert.equal(git(path.join(copy, 'sep'), 'show', 'HEAD:x.txt'), 'x');
    assert.equal(git(path.join(copy, 'sep'), 'rev-parse', '--absolute-git-dir'), realpathSync(path.join(copy, 'gd')), "the copy's own git dir");
    // The agent's worktree restored too: each copy on its own git dir.
    await restore(wt);
    assert.equal(git(path.join(wt, 'sep'), 'rev-parse', '--absolute-git-dir'), realpathSync(path.join(wt, 'gd')));
    assert.deepEqual(result.problems, []);
  });

  it("a nested repository's linked worktree inside the agent's worktree is linked in the copy", async () => {
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    const inner = path.join(wt, 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', path.join(wt, 'side'));
    const side = path.join(wt, 'side');
    write(side, 'c.txt', 'c\n');
    git(side, 'add', 'c.txt');
    git(side, ...WHO, 'commit', '-q', '-m', 'on side');
    write(side, 'x.txt', 'edited\n');
    const before = status(side);
    await capture();
    const copy = sb.path('elsewhere');
    const result = await restore(copy);
    assert.equal(status(path.join(copy, 'side')), before);
    assert.deepEqual(['c.txt', 'x.txt'].map((f) => readFileSync(path.join(copy, 'side', f), 'utf8')), ['c\n', 'edited\n'], 'byte for byte');
    assert.equal(git(path.join(copy, 'side'), 'log', '--format=%s', '-1'), 'on side');
    assert.equal(git(path.join(copy, 'side'), 'rev-parse', '--git-common-dir').replace(/\/$/, ''), realpathSync(path.join(copy, 'inner', '.git')));
    assert.match(git(path.join(copy, 'inner'), 'worktree', 'list'), new RegExp(`${realpathSync(copy)}/side\\s+[0-9a-f]+ \\[side\\]`));
    assert.equal(readFileSync(path.join(copy, 'inner', '.git', 'worktrees', 'side', 'gitdir'), 'utf8').trim(), path.join(realpathSync(copy), 'side', '.git'));
    assert.deepEqual(result.problems, []);
  });
});
