/**
 * Bug 188: a scratch folder's removal, in the `finally` of a capture (and of the other git steps
 * that use one), threw over the step's own outcome. A capture that failed said "ENOTEMPTY: rmdir" of
 * its scratch folder instead of its own error (once in CI under load: a step still wrote there), and
 * one that worked failed for a leftover. Here the removal fails for real: the temporary folder is
 * append-only (chattr +a: a folder can be made in it, never removed), so every scratch folder stays.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { commitAllWork } from '../../../../src/core/git/commitWork';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreExactBytes } from '../../../../src/core/git/exactBytes';
import { worktreeStateCommit } from '../../../../src/core/git/worktreeState';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: a scratch folder that cannot be removed (bug 188)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let stuck: string | undefined;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', '.gitignore': '*.log\n', '.gitattributes': '*.h filter=rm\n' });
    wt = sb.agentWorktree(repo);
  });
  beforeEach(function () {
    stuck = mkdtempSync(path.join(tmpdir(), 'paddock-stuck-'));
    if (spawnSync('chattr', ['+a', stuck]).status !== 0) this.skip(); // needs root and a file system with the flag
    process.env.TMPDIR = stuck; // the gitTestUtil sandbox puts the environment back after each test
  });
  afterEach(() => {
    if (!stuck) return;
    spawnSync('chattr', ['-a', stuck]);
    rmSync(stuck, { recursive: true, force: true });
    stuck = undefined;
  });
  const capture = (log?: (m: string) => void) =>
    captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1', log });

  it("a capture that fails says its own error, not the scratch folder's removal", async () => {
    // The add runs this on a.h, after the walk listed build.log (captureVanished.test.ts).
    git(repo, 'config', 'filter.rm.clean', `rm -f '${path.join(wt, 'build.log')}'; cat`);
    write(wt, 'a.h', 'one\n');
    write(wt, 'build.log', 'output\n');
    const err = await capture().then(
      () => null,
      (e: unknown) => e,
    );
    // Before: "EPERM: operation not permitted, rmdir '…/paddock-capture-…'".
    assert.ok(err instanceof PaddockError, String(err));
    assert.match(err.message, /the worktree changed while it was captured: build\.log in .* went away since it was listed/);
    assert.ok(readdirSync(stuck!).some((n) => n.startsWith('paddock-capture-')), 'the removal was refused, as the test means');
  });

  it('a capture that works is not failed by its scratch folder left behind, and names it in its log (bug 194)', async () => {
    write(wt, 'a.txt', 'work\n');
    const logged: string[] = [];
    const ev = await capture((m) => logged.push(m));
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:a.txt`), 'work');
    // Before: dropped without a word, so leftovers piled up in the temporary folder with no trace of why.
    assert.ok(logged.some((m) => /temporary folder .*paddock-capture-.* left behind: .*(EPERM|EACCES)/.test(m)), logged.join('\n'));
  });

  it("an exact-bytes restore (writeBlobs) puts the blob's bytes back, not failed by its scratch folder left behind, and names it (bug 194)", async () => {
    // A blob with bytes a checkout's conversion would change (CRLF), committed as they are.
    write(wt, 'crlf.txt', 'one\r\ntwo\r\n');
    git(wt, '-c', 'core.autocrlf=false', 'add', 'crlf.txt');
    git(wt, '-c', 'core.autocrlf=false', 'commit', '-qm', 'exact');
    const commit = git(wt, 'rev-parse', 'HEAD');
    write(wt, 'crlf.txt', 'one\ntwo\n');
    const logged: string[] = [];
    assert.equal(await restoreExactBytes(wt, commit, (m) => logged.push(m)), 1);
    assert.deepEqual(readFileSync(path.join(wt, 'crlf.txt')), Buffer.from('one\r\ntwo\r\n'));
    assert.ok(logged.some((m) => /temporary folder .*paddock-exact-.* left behind/.test(m)), logged.join('\n'));
  });

  it("the worktree's state read for a commit or a landing is not failed by its scratch folder left behind", async () => {
    write(wt, 'a.txt', 'work\n');
    const logged: string[] = [];
    const sha = await worktreeStateCommit(wt, 'state', (m) => logged.push(m));
    assert.equal(git(repo, 'show', `${sha}:a.txt`), 'work');
    assert.ok(logged.some((m) => /temporary folder .*paddock-state-.* left behind/.test(m)), logged.join('\n'));
  });

  it('a commit of uncommitted work (update, merge, pr --commit-uncommitted) names the scratch folder its look left behind (bug 194)', async () => {
    write(wt, 'a.txt', 'work\n');
    const logged: string[] = [];
    await commitAllWork(wt, 'uncommitted work', git(wt, 'rev-parse', '--abbrev-ref', 'HEAD'), (m) => logged.push(m));
    assert.equal(git(wt, 'show', 'HEAD:a.txt'), 'work');
    // Before: commitAllWork took no log, so its paddock-state-* folder was left behind unnamed.
    assert.ok(logged.some((m) => /temporary folder .*paddock-state-.* left behind/.test(m)), logged.join('\n'));
  });
});
