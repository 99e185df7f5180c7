/**
 * A linked worktree of ANOTHER repository made inside the agent's worktree (bug 85): its commits
 * lived only in that repository's registration of it, which its `worktree prune` drops once the
 * folder is gone. The capture writes them, and only them, as a verified bundle into the evidence
 * folder, writing nothing into the person's repository nor the other one; restore says where they
 * are and how to fetch them back when the other repository no longer links the folder.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSENT_NEEDED, captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { PaddockError } from '../../../../src/core/common/errors';
import { archivedWorkIn, describeArchivedWork } from '../../../../src/core/operations/archivedWork';
import type { JobRecord } from '../../../../src/core/store';
import { git, write } from './gitTestUtil';
import { foreignSandbox } from './foreignTestUtil';

describe('git: a worktree of another repository inside the agent\'s keeps its commits', function () {
  this.timeout(120_000);
  const t = foreignSandbox();

  it('writes them as a bundle in the evidence folder, nothing into the person\'s repository; after the other repository prunes and gcs, restore says how to fetch them back, and that works', async () => {
    const made = t.foreignCommit();
    const ev = await captureEvidence(t.options());
    assert.throws(() => git(t.repo, 'cat-file', '-e', made), 'not copied into the person\'s repository');
    const [name] = readdirSync(t.sb.path('store', 'evidence', 'foreign'));
    assert.match(name ?? '', /^[0-9]+-[0-9a-f]{8}-0\.bundle$/, 'a name of this capture\'s own');
    const base = git(t.other, 'rev-parse', 'main');
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', new RegExp(`^sub: a worktree of .*other.*its 1 commit\\(s\\) made there kept in .*foreign/${name} \\(built on ${base.slice(0, 12)}… of .*other.*'s history, which must still have it`));
    assert.equal(ev.summary.keptCommits, 0, 'the snapshot keeps none of them');
    const manifest = JSON.parse(readFileSync(ev.inventory, 'utf8'));
    assert.deepEqual(manifest.foreign, [{ path: 'sub', repo: path.join(t.other, '.git'), head: made, branch: null, commits: [made], bundle: `foreign/${name}`, count: 1, needs: [base] }]);
    // Forgetting the agent keeps its evidence folder, bundles and all, as work (archivedWork.ts).
    const work = await archivedWorkIn(t.sb.path('store', 'evidence'), {} as JobRecord);
    assert.equal(work?.foreignBundles, 1);
    assert.match(describeArchivedWork(work!), /the files of sub, worktree of another repository \(whose git dir is that repository's\), and the commits made in 1 worktree\(s\) of another repository \(bundles\)/);
    assert.doesNotMatch(describeArchivedWork(work!), /whole with its git dir/);
    await removeWorktree(t.repo, t.wt);
    t.forget(t.other);
    assert.throws(() => git(t.other, 'cat-file', '-e', made), 'gone from the other repository');

    const result = await restoreWorktree({ repo: t.repo, snapshotRef: ev.snapshotRef, evidenceDir: t.sb.path('store', 'evidence'), target: t.wt, branch: 'paddock/job1' });
    assert.equal(readFileSync(path.join(t.sub, 'made-there.txt'), 'utf8'), 'committed in the other repository\n');
    const note = result.problems.find((p) => /^sub was a worktree of .*other.*the registration is gone.*its 1 commit\(s\) are in .*-0\.bundle \(built on .*; `git -C '.*' fetch '.*-0\.bundle' 'refs\/paddock\/kept\/\*:refs\/heads\/paddock-restored\/.*\/\*'` brings them back as branches/.test(p));
    assert.ok(note, result.problems.join('\n'));
    // The printed command itself, run by a shell: every tip comes back into a branch (not FETCH_HEAD only, which gc drops).
    execFileSync('bash', ['-c', /`(git -C [^`]*)`/.exec(note)![1]!], { stdio: 'ignore' });
    assert.equal(git(t.other, 'for-each-ref', '--format=%(objectname)', 'refs/heads/paddock-restored/'), made);
    t.forget(t.other);
    assert.equal(git(t.other, 'cat-file', '-t', made), 'commit', 'kept by the branch through a gc');
    assert.equal(git(t.other, 'fsck', '--no-progress', '--connectivity-only', made), '');
  });

  it('bundles only what that worktree alone knows, not the other repository\'s history', async () => {
    for (let i = 0; i < 30; i++) git(t.other, 'commit', '-q', '--allow-empty', '-m', `history ${i}`);
    t.foreignCommit();
    const ev = await captureEvidence(t.options());
    const manifest = JSON.parse(readFileSync(ev.inventory, 'utf8'));
    assert.equal(manifest.foreign[0].count, 1);
    git(t.other, 'bundle', 'verify', '-q', t.sb.path('store', 'evidence', manifest.foreign[0].bundle));
  });

  it('works when the person\'s git speaks protocol v0 (no upload-pack setting to lose)', async () => {
    git(t.repo, 'config', 'protocol.version', '0');
    git(t.other, 'config', 'protocol.version', '0');
    t.foreignCommit();
    const ev = await captureEvidence(t.options());
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', /its 1 commit\(s\) made there kept in/);
  });

  it('keeps them from a SHA-256 repository too (its bundle says so)', async () => {
    const other256 = t.sb.path('other256');
    git(t.sb.dir, 'init', '-q', '--object-format=sha256', other256);
    git(other256, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'sha-256 base');
    git(other256, 'worktree', 'add', '-q', '--detach', t.sub);
    git(t.sub, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'made there');
    const ev = await captureEvidence(t.options());
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', /its 1 commit\(s\) made there kept in/);
    git(other256, 'bundle', 'verify', '-q', t.sb.path('store', 'evidence', JSON.parse(readFileSync(ev.inventory, 'utf8')).foreign[0].bundle));
  });

  it('keeps them from a shallow clone too: the bundle is built on its shallow tip, which it has, and fetches back', async () => {
    const shallow = t.sb.path('shallow');
    for (let i = 0; i < 3; i++) git(t.other, 'commit', '-q', '--allow-empty', '-m', `history ${i}`);
    git(t.sb.dir, 'clone', '-q', '--depth=1', `file://${t.other}`, shallow);
    git(shallow, 'worktree', 'add', '-q', '--detach', t.sub);
    git(t.sub, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'made there');
    const made = git(t.sub, 'rev-parse', 'HEAD');
    const ev = await captureEvidence(t.options());
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', /its 1 commit\(s\) made there kept in/);
    const bundle = t.sb.path('store', 'evidence', JSON.parse(readFileSync(ev.inventory, 'utf8')).foreign[0].bundle);
    await removeWorktree(t.repo, t.wt);
    t.forget(shallow);
    assert.throws(() => git(shallow, 'cat-file', '-e', made), 'gone from the shallow clone');
    git(shallow, 'bundle', 'verify', '-q', bundle);
    git(shallow, 'fetch', '-q', bundle, `refs/paddock/kept/*:refs/heads/back/*`);
    assert.equal(git(shallow, 'rev-parse', 'back/0'), made);
    assert.equal(git(t.repo, 'fsck', '--no-progress'), '');
    assert.equal(git(t.repo, 'rev-list', '--count', ev.snapshotRef, '--not', 'main'), '1', 'the snapshot carries no commit of the other repository');
  });

  it('stops for consent when the worktree of another repository holds staged changes, which live in that repository', async () => {
    t.foreignCommit();
    write(t.sub, 'staged.txt', 'staged\n');
    git(t.sub, 'add', 'staged.txt');
    write(t.sub, 'staged.txt', 'staged, then edited\n');
    await assert.rejects(captureEvidence(t.options()), (err: unknown) => err instanceof PaddockError && err.code === CONSENT_NEEDED && /sub: worktree\(s\) of another repository with staged changes/.test(err.message));
    assert.equal(existsSync(t.sb.path('store', 'evidence', 'inventory.json')), false, 'nothing captured');
    const ev = await captureEvidence(t.options({ dropUnarchivable: true }));
    assert.equal(ev.summary.foreignWorktrees?.length, 1);
  });

  it('a stop for another reason (the archive limit) names the staged changes too, so consent to it is given knowing them', async () => {
    t.foreignCommit();
    write(t.sub, 'staged.txt', 'staged\n');
    git(t.sub, 'add', 'staged.txt');
    write(t.wt, 'big.bin', Buffer.alloc(64 * 1024, 7));
    write(t.wt, '.gitignore', 'big.bin\n');
    await assert.rejects(captureEvidence(t.options({ archiveLimitBytes: 1024 })), (err: unknown) => {
      assert.ok(err instanceof PaddockError && err.code === CONSENT_NEEDED, String(err));
      assert.match(err.message, /^Nothing was removed: sub: worktree\(s\) of another repository with staged changes.*\. Also: .*big\.bin/s);
      return true;
    });
  });

  it('leaves a worktree of the agent\'s own repository to the inner-worktree keeping (not another repository\'s)', async () => {
    git(t.repo, 'worktree', 'add', '-q', '--detach', path.join(t.wt, 'own'));
    const ev = await captureEvidence(t.options());
    assert.equal(ev.summary.foreignWorktrees, undefined);
  });
});
