/**
 * A `git gc` with gc.pruneExpire=now running while a capture writes its snapshot (bug 139): its prune
 * reads the refs, the capture writes its ref, the prune deletes the snapshot's objects, and the
 * capture had already said the work was kept. The gc is played with real parts: `gc.pid` naming a
 * live process, as git holds it while a gc runs, and a real `git prune --expire=now` whose view of
 * the refs is the repository's before the snapshot ref (a repository sharing the objects, holding
 * the branches only), run once the snapshot ref is there.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: a gc that prunes while the snapshot is written (bug 139)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let gc: ChildProcess | undefined;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
  });
  afterEach(() => gc?.kill('SIGKILL'));

  /** A gc "running": a live git named by gc.pid, as git writes it ("<pid> <host>"); this one waits for its input. */
  const startGc = () => {
    gc = spawn('git', ['hash-object', '--stdin'], { stdio: ['pipe', 'ignore', 'ignore'] });
    writeFileSync(path.join(repo, '.git', 'gc.pid'), `${gc.pid} ${hostname()}`);
  };
  const endGc = () => {
    gc?.kill('SIGKILL');
    rmSync(path.join(repo, '.git', 'gc.pid'), { force: true });
  };
  /** A prune whose view of the refs was taken before the snapshot ref was written. */
  const pruneWithOldView = () => {
    const view = sb.path('view.git');
    git(sb.dir, 'init', '-q', '--bare', view);
    rmSync(path.join(view, 'objects'), { recursive: true, force: true });
    symlinkSync(path.join(repo, '.git', 'objects'), path.join(view, 'objects'));
    for (const branch of ['main', 'paddock/job1']) git(view, 'update-ref', `refs/heads/${branch}`, git(repo, 'rev-parse', branch));
    git(view, 'prune', '--expire=now');
  };
  const snapshotRefThere = () => {
    try {
      git(repo, 'rev-parse', '-q', '--verify', 'refs/paddock/snapshots/job1');
      return true;
    } catch {
      return false;
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
  const capture = () => captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });

  it('waits for the gc, finds the objects it deleted, fails with nothing claimed and takes the ref back', async () => {
    write(wt, 'new.txt', 'work\n');
    write(wt, 'README.md', 'edited\n');
    mkdirSync(sb.path('store'), { recursive: true });
    startGc();
    const capturing = capture().then(
      (ev) => ev,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
    while (!snapshotRefThere()) await sleep(10);
    pruneWithOldView();
    endGc();
    const result = await capturing;
    if (!(result instanceof Error)) {
      // Before: the capture said the work was kept; its snapshot is not there.
      assert.fail(`the capture succeeded; objects of its snapshot missing: ${missingOf(result.snapshotSha)}`);
    }
    assert.match(result.message, /\d+ object\(s\) of the snapshot were deleted in .* while it was written .*; nothing was removed/);
    assert.equal(snapshotRefThere(), false, 'the ref that named an incomplete snapshot is gone');
    // The next attempt, with no gc, keeps everything.
    const ev = await capture();
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'work');
    assert.equal(missingOf(ev.snapshotSha), 0);
  });

  it('a gc.pid whose pid is now another program (a gc that crashed) is no gc: the capture does not wait', async () => {
    write(wt, 'new.txt', 'work\n');
    gc = spawn('sleep', ['60'], { stdio: 'ignore' });
    writeFileSync(path.join(repo, '.git', 'gc.pid'), `${gc.pid} ${hostname()}`);
    const started = Date.now();
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'work');
  });

  it('a gc that deletes nothing of it: the capture waits for it to end, then succeeds', async () => {
    write(wt, 'new.txt', 'work\n');
    startGc();
    const capturing = capture();
    while (!snapshotRefThere()) await sleep(10);
    await sleep(500);
    let settled = false;
    void capturing.then(() => (settled = true), () => (settled = true));
    await sleep(50);
    assert.equal(settled, false, 'still waiting for the gc');
    endGc();
    const ev = await capturing;
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'work');
  });
});
