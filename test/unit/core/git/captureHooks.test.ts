/**
 * The person's reference-transaction hook must not refuse the snapshot that lets a worktree be
 * removed (bug 105): a hook that refused refs it did not know (`refs/paddock/…`) failed every
 * capture at its last step, *ref updates aborted by hook*, Clean Up Anyway included, and the
 * background coordinator retried it forever. Paddock's own refs are written without hooks, and
 * the capture runs none on its own indexes.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe("git: the person's reference-transaction hook and the capture's own ref (bug 105)", function () {
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

  it('a hook that refuses every ref under refs/paddock/ does not stop the snapshot, and still guards the rest', async () => {
    const seen = sb.path('hook-saw');
    const hook = path.join(repo, '.git', 'hooks', 'reference-transaction');
    write(path.dirname(hook), 'reference-transaction', `#!/bin/sh\nwhile read o n r; do echo "$r" >> '${seen}'; case $r in refs/paddock/*) echo "refusing $r" >&2; exit 1;; esac; done\n`);
    chmodSync(hook, 0o755);
    write(wt, 'README.md', 'edited\n');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    assert.equal(git(repo, 'show', `${ev.snapshotRef}:README.md`), 'edited');
    assert.equal(existsSync(seen) && readFileSync(seen, 'utf8').includes('refs/paddock/'), false, 'the hook was not asked about our own ref');
    // The person's hook still runs for their own refs.
    assert.throws(() => git(repo, 'update-ref', 'refs/paddock/theirs', base), /aborted by hook/);
  });

  // The person's post-index-change hook ran on each write of the capture's scratch indexes (nine in a
  // measured cleanup): a slow one slowed every capture, one that hangs failed each at its timeout.
  it("runs no hook on the capture's own indexes (post-index-change)", async () => {
    const seen = sb.path('hook-saw');
    const hook = path.join(repo, '.git', 'hooks', 'post-index-change');
    write(path.dirname(hook), 'post-index-change', `#!/bin/sh\necho "index $GIT_INDEX_FILE" >> '${seen}'\n`);
    chmodSync(hook, 0o755);
    write(wt, 'README.md', 'edited\n');
    write(wt, 'new.txt', 'new\n');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    assert.equal(git(repo, 'show', `${ev.snapshotRef}:new.txt`), 'new');
    assert.equal(existsSync(seen) ? readFileSync(seen, 'utf8') : '', '', 'the hook never ran');
  });
});
