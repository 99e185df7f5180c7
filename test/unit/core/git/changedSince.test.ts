import * as assert from 'node:assert/strict';
import { readdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { firstChangeSinceCapture, isGitDirNoise } from '../../../../src/core/git/changedSince';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { walkWorktree } from '../../../../src/core/git/inventory';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git/changedSince: the worktree still is what its capture saw', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', '.gitignore': 'node_modules/\n' });
    wt = sb.agentWorktree(repo);
  });

  async function stamp() {
    write(wt, 'work.txt', 'twelve bytes');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main') });
    return ev.stamp;
  }
  const check = async (s: Awaited<ReturnType<typeof stamp>>) => firstChangeSinceCapture(await walkWorktree(wt), s, (p) => p.startsWith('node_modules'));

  it('sees nothing when nothing changed, and ignores regenerable paths and git status refreshing the index', async () => {
    const s = await stamp();
    write(wt, 'node_modules/x.js', 'cache\n');
    git(wt, 'status', '--porcelain');
    assert.equal(await check(s), null);
  });

  it('sees a same-size rewrite whose mtime was put back (the ctime moved), and a save by rename', async () => {
    const s = await stamp();
    const file = path.join(wt, 'work.txt');
    const before = statSync(file);
    writeFileSync(file, 'TWELVE BYTES');
    utimesSync(file, before.atime, before.mtime);
    assert.equal(await check(s), 'work.txt');

    const s2 = await stamp();
    writeFileSync(path.join(wt, 'tmp'), 'twelve bytes');
    utimesSync(path.join(wt, 'tmp'), before.atime, before.mtime);
    renameSync(path.join(wt, 'tmp'), file);
    assert.equal(await check(s2), 'work.txt');
  });

  it('sees new files and a commit made after the capture (HEAD and its reflog in the private git dir)', async () => {
    const s = await stamp();
    write(wt, 'later.txt', 'after the capture\n');
    assert.equal(await check(s), 'later.txt');
    const s2 = await stamp();
    git(wt, 'add', 'later.txt');
    git(wt, 'commit', '-q', '-m', 'after the capture');
    // The first entry of the private git dir the commit touched (COMMIT_EDITMSG, logs/HEAD…).
    assert.match((await check(s2)) ?? '', /^\.git\/./);
  });

  it("takes a refreshed index for noise, the worktree's own or a submodule's, and nothing else of the git dir", () => {
    for (const noise of ['index', 'modules/vendor/lib/index', 'modules/a/modules/b/index', 'index.lock', 'HEAD.lock', 'gitdir', 'locked', 'sharedindex.4997b5490ef7b4147b157f2877bfa3913e98b7d1', 'modules/vendor/lib/sharedindex.88701c02d7786d709662c3b2aaeaf20e24ecbd0b']) {
      assert.equal(isGitDirNoise(noise), true, noise);
    }
    for (const change of ['HEAD', 'logs/HEAD', 'refs/worktree/index', 'refs/sharedindex.x', 'modules/vendor/lib/HEAD', 'modules/vendor/lib/refs/heads/main', 'ORIG_HEAD']) assert.equal(isGitDirNoise(change), false, change);
  });

  it('with a split index, its shared part written anew after the capture is not taken for a change', async () => {
    git(wt, 'update-index', '--split-index');
    const s = await stamp();
    const shared = () => readdirSync(s.gitDir).filter((n) => n.startsWith('sharedindex.')).sort();
    const before = shared();
    // The index written anew into a new shared file (an index-only change: no file of the worktree moves), as the removal's own last status did.
    git(wt, 'rm', '-q', '--cached', 'README.md');
    git(wt, 'update-index', '--no-split-index');
    git(wt, 'update-index', '--split-index');
    assert.notDeepEqual(shared(), before, 'git wrote a new sharedindex file');
    assert.equal(await check(s), null);
  });
});
