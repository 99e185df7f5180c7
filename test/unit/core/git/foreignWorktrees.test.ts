/**
 * A linked worktree of ANOTHER repository made inside the agent's worktree (bug 85): its commits
 * lived only in that repository's registration of it, which its `worktree prune` drops once the
 * folder is gone. The capture copies them into the agent's repository, the snapshot keeps them,
 * and restore says where they are when the other repository no longer links the folder.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSENT_NEEDED, captureEvidence, type CaptureOptions } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { PaddockError } from '../../../../src/core/common/errors';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: a worktree of another repository inside the agent\'s keeps its commits', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let other: string;
  let wt: string;
  let sub: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    other = sb.repo({ 'other.txt': 'another project\n' }, 'other');
    wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/job1', wt, 'main');
    sub = path.join(wt, 'sub');
  });

  function options(extra: Partial<CaptureOptions> = {}): CaptureOptions {
    return { repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1', ...extra };
  }

  /** The agent's `git -C other worktree add $WT/sub --detach` and a commit there; returns it. */
  function foreignCommit(): string {
    git(other, 'worktree', 'add', '-q', '--detach', sub);
    write(sub, 'made-there.txt', 'committed in the other repository\n');
    git(sub, 'add', 'made-there.txt');
    git(sub, 'commit', '-q', '-m', 'work in a worktree of another repository');
    return git(sub, 'rev-parse', 'HEAD');
  }

  const forget = (r: string) => {
    git(r, 'worktree', 'prune');
    git(r, 'reflog', 'expire', '--expire=now', '--all');
    git(r, 'gc', '-q', '--prune=now');
  };

  it('copies the commits into the agent\'s repository, where the snapshot keeps them after the other repository prunes and gcs, and says so', async () => {
    const made = foreignCommit();
    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    forget(other);
    forget(repo);
    assert.throws(() => git(other, 'cat-file', '-e', made), 'gone from the other repository');
    assert.equal(git(repo, 'cat-file', '-t', made), 'commit');
    assert.equal(git(repo, 'merge-base', '--is-ancestor', made, ev.snapshotRef), '');
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', /^sub: a worktree of .*other.*1 commit\(s\) made there kept by the snapshot/);
    const manifest = JSON.parse(readFileSync(ev.inventory, 'utf8'));
    assert.deepEqual(manifest.foreign, [{ path: 'sub', repo: path.join(other, '.git'), head: made, branch: null, commits: [made] }]);

    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1' });
    assert.equal(readFileSync(path.join(sub, 'made-there.txt'), 'utf8'), 'committed in the other repository\n');
    assert.ok(result.problems.some((p) => /^sub was a worktree of .*other.*no longer has it registered.*kept in this repository by refs\/paddock\/snapshots\/job1/.test(p)), result.problems.join('\n'));
  });

  it('restored at its place while the other repository still registers it, it is that worktree again, and nothing is said', async () => {
    const made = foreignCommit();
    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    assert.equal(git(sub, 'rev-parse', 'HEAD'), made);
    assert.equal(git(sub, 'status', '--porcelain'), '');
  });

  it('stops for consent when the worktree of another repository holds staged changes, which live in that repository', async () => {
    foreignCommit();
    write(sub, 'staged.txt', 'staged\n');
    git(sub, 'add', 'staged.txt');
    write(sub, 'staged.txt', 'staged, then edited\n');
    await assert.rejects(captureEvidence(options()), (err: unknown) => err instanceof PaddockError && err.code === CONSENT_NEEDED && /sub: worktree\(s\) of another repository with staged changes/.test(err.message));
    assert.equal(existsSync(sb.path('store', 'evidence', 'inventory.json')), false, 'nothing captured');
    const ev = await captureEvidence(options({ dropUnarchivable: true }));
    assert.equal(ev.summary.foreignWorktrees?.length, 1);
  });

  it('stops for consent when the commits cannot be copied here (a SHA-256 repository), and with it says they were not kept', async () => {
    const other256 = sb.path('other256');
    git(sb.dir, 'init', '-q', '--object-format=sha256', other256);
    git(other256, 'commit', '-q', '--allow-empty', '-m', 'sha-256 base');
    git(other256, 'worktree', 'add', '-q', '--detach', sub);
    git(sub, 'commit', '-q', '--allow-empty', '-m', 'made there');
    await assert.rejects(captureEvidence(options()), (err: unknown) => err instanceof PaddockError && err.code === CONSENT_NEEDED && /could not be copied into this one/.test(err.message));
    const ev = await captureEvidence(options({ dropUnarchivable: true }));
    assert.match(ev.summary.foreignWorktrees?.[0] ?? '', /1 commit\(s\) made there NOT kept/);
  });

  it('leaves a worktree of the agent\'s own repository to the inner-worktree keeping (not copied as another repository\'s)', async () => {
    git(repo, 'worktree', 'add', '-q', '--detach', path.join(wt, 'own'));
    const ev = await captureEvidence(options());
    assert.equal(ev.summary.foreignWorktrees, undefined);
  });
});
