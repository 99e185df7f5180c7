/**
 * Restore does its own writes of the new worktree without the person's hooks and filter drivers
 * (bug 122): a smudge filter that hangs held the checkout for its 600 s timeout and then failed
 * the restore, every retry; a post-index-change
 * hook ran on each of restore's index writes, and one that hangs failed each at its timeout. The
 * capture keeps every file a filter touches byte for byte, so nothing needs the filter to come back.
 * Nor the line-end settings where the restore runs (bug 123).
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe("git: restore runs the person's filters and hooks on none of its own writes (bug 122)", function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  async function captureAndRestore(): Promise<string> {
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    return restored;
  }

  it('a smudge filter that hangs at restore does not hold it: the files come back as they were on disk', async () => {
    // A filter that works at capture (each o stored doubled: git's form is another size), then hangs on both sides.
    git(repo, 'config', 'filter.up.clean', 'sed s/o/oo/g');
    git(repo, 'config', 'filter.up.smudge', 'sed s/oo/o/g');
    write(wt, '.gitattributes', '*.up filter=up\n');
    write(wt, 'a.up', 'work of the agent\n');
    write(wt, 'b.up', 'no o doubled: ooo\n');
    write(wt, 'README.md', 'edited\n');
    // Tracked (staged): the restore's last refresh hashed it through the clean filter, which then hangs (review found).
    write(wt, 'c.up', 'staged too\n');
    git(wt, 'add', '.gitattributes', 'c.up');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:a.up'), 'woork oof the agent', "the snapshot holds git's form");
    git(repo, 'config', 'filter.up.clean', 'sleep 90');
    git(repo, 'config', 'filter.up.smudge', 'sleep 90');
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    const started = Date.now();
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.ok(Date.now() - started < 30_000, `the restore took ${Date.now() - started} ms`);
    assert.equal(readFileSync(path.join(restored, 'a.up'), 'utf8'), 'work of the agent\n');
    assert.equal(readFileSync(path.join(restored, 'b.up'), 'utf8'), 'no o doubled: ooo\n');
    assert.equal(readFileSync(path.join(restored, 'README.md'), 'utf8'), 'edited\n');
    assert.equal(readFileSync(path.join(restored, 'c.up'), 'utf8'), 'staged too\n');
    assert.equal(git(restored, 'show', ':c.up'), 'staged toooo', 'still staged, in its filtered form');
  });

  // Review found: so did the refresh of a linked worktree the agent had made inside its own, relinked at restore.
  it('a clean filter that hangs at restore does not hold the relinking of an inner worktree', async () => {
    git(repo, 'config', 'filter.up.clean', 'sed s/o/oo/g');
    git(repo, 'config', 'filter.up.smudge', 'sed s/oo/o/g');
    write(wt, '.gitattributes', '*.up filter=up\n');
    write(wt, 'a.up', 'tracked one\n');
    git(wt, 'add', '.gitattributes', 'a.up');
    git(wt, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-m', 'a filtered file');
    git(wt, 'worktree', 'add', '-q', '--detach', path.join(wt, 'inner-wt'), 'HEAD');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    git(repo, 'config', 'filter.up.clean', 'sleep 90');
    git(repo, 'config', 'filter.up.smudge', 'sleep 90');
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    const started = Date.now();
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.ok(Date.now() - started < 30_000, `the restore took ${Date.now() - started} ms`);
    assert.deepEqual(result.problems, []);
    assert.equal(readFileSync(path.join(restored, 'inner-wt', 'a.up'), 'utf8'), 'tracked one\n');
  });

  it("runs no post-index-change hook on the restored worktree's index", async () => {
    const seen = sb.path('hook-saw');
    const hook = path.join(repo, '.git', 'hooks', 'post-index-change');
    write(path.dirname(hook), 'post-index-change', `#!/bin/sh\necho "index $PWD" >> '${seen}'\n`);
    chmodSync(hook, 0o755);
    write(wt, 'README.md', 'edited\n');
    write(wt, 'staged.txt', 'staged\n');
    git(wt, '-c', 'core.hooksPath=/dev/null', 'add', 'staged.txt');
    write(wt, 'later.txt', 'intent\n');
    git(wt, '-c', 'core.hooksPath=/dev/null', 'add', '-N', 'later.txt');
    const statusBefore = git(wt, '-c', 'core.hooksPath=/dev/null', 'status', '--porcelain');
    const restored = await captureAndRestore();
    assert.equal(git(restored, '-c', 'core.hooksPath=/dev/null', 'status', '--porcelain'), statusBefore);
    assert.equal(existsSync(seen) ? readFileSync(seen, 'utf8').split('\n').filter((l) => l.includes('restored')).join('\n') : '', '', 'the hook never ran on the restored index');
  });

  // Bug 123: line-end settings that differ where the restore runs (set since the cleanup, or made for
  // the restored worktree's path alone by an `includeIf "gitdir:…"`) converted files the agent had not.
  it('line-end settings made since the capture, or only for the restored path, do not change the bytes that come back', async () => {
    write(wt, 'lf.txt', 'a\nb\n');
    write(wt, '.gitattributes', '*.t text\n');
    write(wt, 'marked.t', 'c\nd\n');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    // Only for the restored worktree's git dir, as an includeIf in the person's config would.
    const restored = sb.path('restored');
    git(repo, 'config', '--file', path.join(repo, '.git', 'crlf.inc'), 'core.autocrlf', 'true');
    git(repo, 'config', '--file', path.join(repo, '.git', 'crlf.inc'), 'core.eol', 'crlf');
    git(repo, 'config', `includeIf.gitdir:${path.join(repo, '.git', 'worktrees', 'restored')}.path`, path.join(repo, '.git', 'crlf.inc'));
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.equal(git(restored, 'config', 'core.autocrlf'), 'true', 'the setting applies there');
    assert.equal(readFileSync(path.join(restored, 'lf.txt'), 'latin1'), 'a\nb\n');
    assert.equal(readFileSync(path.join(restored, 'marked.t'), 'latin1'), 'c\nd\n');
    assert.equal(readFileSync(path.join(restored, 'README.md'), 'latin1'), 'hello\n');
  });

  // Review found: attributes have sources no setting of the checkout's turns off (core.attributesFile, which an
  // includeIf may set for the restored path alone; the repository's info/attributes; a global or system file).
  it('line-end attributes from core.attributesFile or info/attributes, made since the capture, do not change the bytes either', async () => {
    write(wt, 'lf.txt', 'a\nb\n');
    write(wt, 'other.md', 'c\nd\n');
    write(wt, 'kept.bat', 'e\r\nf\n'); // mixed: git converts it at capture, so its exact bytes are kept
    write(wt, '.gitattributes', '*.bat eol=crlf\n');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    write(repo, '.git/crlf.attrs', '*.txt eol=crlf\n');
    git(repo, 'config', '--file', path.join(repo, '.git', 'crlf.inc'), 'core.attributesFile', path.join(repo, '.git', 'crlf.attrs'));
    git(repo, 'config', `includeIf.gitdir:${path.join(repo, '.git', 'worktrees', 'restored')}.path`, path.join(repo, '.git', 'crlf.inc'));
    write(repo, '.git/info/attributes', '*.md eol=crlf\n');
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.equal(readFileSync(path.join(restored, 'lf.txt'), 'latin1'), 'a\nb\n');
    assert.equal(readFileSync(path.join(restored, 'other.md'), 'latin1'), 'c\nd\n');
    assert.equal(readFileSync(path.join(restored, 'kept.bat'), 'latin1'), 'e\r\nf\n');
    assert.equal(readFileSync(path.join(restored, 'README.md'), 'latin1'), 'hello\n');
  });
});
