/**
 * Second review of bug 85: a bundle of an earlier capture outlives later ones (after a restore it
 * may be the only copy), it is built on the other repository's branches and tags only (not on
 * remote-tracking refs a `fetch --prune` drops), a path with a newline or a quote in it is no
 * trouble, and restore's fetch command, run as printed, brings every tip back into branches.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { git, write } from './gitTestUtil';
import { foreignSandbox } from './foreignTestUtil';

describe('git: the bundles of worktrees of another repository', function () {
  this.timeout(120_000);
  const t = foreignSandbox();
  const evidence = () => t.sb.path('store', 'evidence');
  const restore = (snapshotRef: string) => restoreWorktree({ repo: t.repo, snapshotRef, evidenceDir: evidence(), target: t.wt, branch: 'paddock/job1' });
  const runPrinted = (note: string) => execFileSync('bash', ['-c', /`(git -C [^`]*fetch[^`]*)`/.exec(note)![1]!], { stdio: 'ignore' });

  it('cleaning up again after a restore keeps the earlier capture\'s bundle (by then the only copy of its commits)', async () => {
    const made = t.foreignCommit();
    const first = await captureEvidence(t.options());
    const firstBundle = JSON.parse(readFileSync(first.inventory, 'utf8')).foreign[0].bundle as string;
    await removeWorktree(t.repo, t.wt);
    git(t.other, 'worktree', 'prune');
    await restore(first.snapshotRef);
    // The folder is plain files now: the second capture has no worktree of another repository to bundle.
    const second = await captureEvidence(t.options());
    assert.equal(second.summary.foreignWorktrees, undefined);
    assert.deepEqual(readdirSync(path.join(evidence(), 'foreign')), [path.basename(firstBundle)]);
    t.forget(t.other);
    assert.throws(() => git(t.other, 'cat-file', '-e', made), 'gone from the other repository');
    git(t.other, 'fetch', '-q', path.join(evidence(), firstBundle), 'refs/paddock/kept/*:refs/heads/back/*');
    assert.equal(git(t.other, 'rev-parse', 'back/0'), made);
  });

  it('two captures of the same worktree write two bundles, each inventory naming its own', async () => {
    t.foreignCommit();
    const first = JSON.parse(readFileSync((await captureEvidence(t.options())).inventory, 'utf8')).foreign[0].bundle as string;
    git(t.sub, 'commit', '-q', '--allow-empty', '-m', 'one more');
    const second = JSON.parse(readFileSync((await captureEvidence(t.options())).inventory, 'utf8')).foreign[0].bundle as string;
    assert.notEqual(first, second);
    assert.deepEqual(readdirSync(path.join(evidence(), 'foreign')).sort(), [path.basename(first), path.basename(second)].sort());
  });

  it('is not built on a remote-tracking ref: after `fetch --prune` drops it and a gc, the bundle still verifies', async () => {
    git(t.other, 'commit', '-q', '--allow-empty', '-m', 'only a remote-tracking ref keeps this');
    git(t.other, 'update-ref', 'refs/remotes/origin/topic', 'HEAD');
    git(t.other, 'reset', '-q', '--hard', 'HEAD~1');
    git(t.other, 'worktree', 'add', '-q', '--detach', t.sub, 'origin/topic');
    git(t.sub, 'commit', '-q', '--allow-empty', '-m', 'made there');
    const ev = await captureEvidence(t.options());
    const record = JSON.parse(readFileSync(ev.inventory, 'utf8')).foreign[0];
    assert.equal(record.count, 2);
    await removeWorktree(t.repo, t.wt);
    git(t.other, 'update-ref', '-d', 'refs/remotes/origin/topic');
    t.forget(t.other);
    git(t.other, 'bundle', 'verify', '-q', path.join(evidence(), record.bundle));
  });

  it('a repository path with a newline and a quote: the bundle is made, and restore\'s command, run as printed, fetches it into branches', async () => {
    const odd = t.sb.path("odd\nname's");
    git(t.sb.dir, 'init', '-q', '-b', 'main', odd);
    write(odd, 'a.txt', 'a\n');
    git(odd, 'add', 'a.txt');
    git(odd, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'base');
    git(odd, 'worktree', 'add', '-q', '--detach', t.sub);
    git(t.sub, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'made there');
    const made = git(t.sub, 'rev-parse', 'HEAD');
    const ev = await captureEvidence(t.options());
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', /its 1 commit\(s\) made there kept in/);
    await removeWorktree(t.repo, t.wt);
    t.forget(odd);
    const result = await restore(ev.snapshotRef);
    const note = result.problems.find((p) => p.includes('brings them back as branches')) ?? '';
    assert.match(note, /`git -C \$'[^`]*odd\\nname\\'s[^`]*' fetch /, result.problems.join('\n'));
    runPrinted(note);
    assert.equal(git(odd, 'for-each-ref', '--format=%(objectname)', 'refs/heads/paddock-restored/'), made);
  });
});
