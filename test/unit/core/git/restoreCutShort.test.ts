/**
 * A restore that fails after git made the worktree (bug 88): a required smudge
 * filter git cannot run where the restore runs (git-lfs missing from the PATH
 * of the window or the CLI), a full disk, a damaged archive. It left a
 * registered folder with part of the files at the agent's own path, which
 * passed for its worktree, and the next `paddock restore` refused it ("still
 * exists"). Now nothing is left, and the same restore succeeds once the cause
 * is gone. (A smudge filter no longer runs in a restore at all, bug 122: the
 * failure made here is a damaged archive.)
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree, type RestoreOptions } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, commitIn, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: a restore cut short leaves nothing half-made (bug 88)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'c.txt': 'c before\n', '.gitattributes': '*.sm filter=sm\n', 'a.sm': 'one\n', 'z.txt': 'z\n', '.gitignore': 'build/\n' });
    wt = sb.agentWorktree(repo);
  });

  async function captured(): Promise<{ restore: RestoreOptions; before: ReturnType<typeof treeState> }> {
    write(wt, 'c.txt', 'c edited\n');
    write(wt, 'new.txt', 'new\n');
    write(wt, 'build/out.log', 'ignored\n');
    const before = treeState(wt);
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    // The agent's own path, as a plain `paddock restore ID` uses.
    return { restore: { repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1' }, before };
  }

  const registered = () => git(repo, 'worktree', 'list', '--porcelain').includes(`worktree ${wt}\n`);

  /** Damages the evidence's archive (the restore fails after git made the worktree); returns what puts it back. */
  function damageArchive(): () => void {
    const archive = sb.path('store', 'evidence', 'archive.tar');
    const bytes = readFileSync(archive);
    writeFileSync(archive, 'not a tar');
    return () => writeFileSync(archive, bytes);
  }

  it('a damaged archive: nothing at the path, no registration; the same restore works once it is whole', async () => {
    const { restore, before } = await captured();
    const repair = damageArchive();
    const failed = await restoreWorktree(restore).then(() => null, (e: Error) => e);
    assert.equal(existsSync(wt), false, 'no half-restored folder at the agent\'s path');
    assert.equal(registered(), false, 'no registration left at it');
    assert.match(failed?.message ?? '', new RegExp(`^Could not restore the worktree ${wt}: .*Nothing was left there; the evidence is unchanged, so the restore can be run again\\.$`));
    repair();
    const result = await restoreWorktree(restore);
    assert.deepEqual(result.problems, []);
    assertSameState(treeState(wt), before);
  });

  it('a required smudge filter that cannot run where the restore runs does not stop it (bug 122): the files come back as captured', async () => {
    git(repo, 'config', 'filter.sm.clean', 'cat');
    git(repo, 'config', 'filter.sm.required', 'true');
    const { restore, before } = await captured();
    git(repo, 'config', 'filter.sm.smudge', 'no-such-smudge-command');
    const result = await restoreWorktree(restore);
    assert.deepEqual(result.problems, []);
    assertSameState(treeState(wt), before);
  });

  it('a damaged archive: the tracked files are not left posing as the whole worktree', async () => {
    git(repo, 'config', 'filter.sm.clean', 'cat');
    git(repo, 'config', 'filter.sm.smudge', 'cat');
    const { restore } = await captured();
    writeFileSync(sb.path('store', 'evidence', 'archive.tar'), 'not a tar');
    const failed = await restoreWorktree(restore).then(() => null, (e: Error) => e);
    assert.equal(existsSync(wt), false);
    assert.equal(registered(), false);
    assert.match(failed?.message ?? '', /Nothing was left there; the evidence is unchanged/);
  });

  it('a branch it re-created is gone again, and an empty folder given to it is left empty', async () => {
    git(repo, 'config', 'filter.sm.clean', 'cat');
    git(repo, 'config', 'filter.sm.required', 'true');
    const { restore, before } = await captured();
    git(repo, 'branch', '-D', 'paddock/job1'); // as a cleanup with --delete-branch
    const repair = damageArchive();
    const copy = sb.path('copy');
    mkdirSync(copy);
    const failed = await restoreWorktree({ ...restore, target: copy }).then(() => null, (e: Error) => e);
    assert.match(failed?.message ?? '', /Nothing was left there/);
    assert.deepEqual(readdirSync(copy), []);
    assert.equal(git(repo, 'branch', '--list', 'paddock/job1'), '', 'the re-created branch is undone');
    repair();
    const result = await restoreWorktree({ ...restore, target: copy });
    assert.match(result.branchNote, /re-created/);
    assertSameState(treeState(copy), before);
  });

  it('the branch re-created before the checkout (one a stopped rebase --update-refs moves) is undone too, and the next restore says so again', async () => {
    commitIn(wt, 'g.txt', 'a1\n', 'A1');
    git(wt, 'checkout', '-q', '-b', 'top');
    commitIn(wt, 'c.txt', 'a2\n', 'A2');
    git(wt, 'checkout', '-q', '-b', 'upstream', 'main');
    commitIn(wt, 'c.txt', 'upstream\n', 'U');
    git(wt, 'checkout', '-q', 'top');
    assert.throws(() => git(wt, 'rebase', '--update-refs', 'upstream'), 'stops on the conflict in c.txt');
    write(wt, 'build/out.log', 'ignored\n'); // archived: an archive to damage
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    // The cleanup deletes the agent's branch, stacked under the rebased one (`top`, which stays).
    git(repo, 'branch', '-D', 'paddock/job1');
    const restore = { repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1', branchDeletedByCleanup: true };
    const repair = damageArchive();
    const failed = await restoreWorktree(restore).then(() => null, (e: Error) => e);
    assert.match(failed?.message ?? '', /Nothing was left there/);
    assert.equal(git(repo, 'branch', '--list', 'paddock/job1'), '', 'no branch the failed restore made is left');
    assert.notEqual(git(repo, 'branch', '--list', 'top'), '', 'a branch the restore did not make stays');
    repair();
    const result = await restoreWorktree(restore);
    assert.equal(result.problems.filter((p) => /^the branch paddock\/job1, which the cleanup had deleted, is re-created/.test(p)).length, 1, result.problems.join('\n'));
  });

  it('git cannot make the worktree: an empty --to folder is still there with its mode, a branch made for it is undone, and the message reads as one', async () => {
    const { restore } = await captured();
    git(repo, 'branch', '-D', 'paddock/job1');
    const copy = sb.path('copy');
    // A worktree once registered there whose folder is gone: git refuses to add another.
    git(repo, 'worktree', 'add', '-q', '--detach', copy, 'main');
    rmSync(copy, { recursive: true });
    mkdirSync(copy, { mode: 0o750 });
    chmodSync(copy, 0o750);
    const failed = await restoreWorktree({ ...restore, target: copy }).then(() => null, (e: Error) => e);
    assert.match(failed?.message ?? '', /^Could not create the worktree .*copy: '.*copy' is a missing but already registered worktree\. Nothing was left there; the evidence is unchanged, so the restore can be run again\.$/);
    assert.deepEqual(readdirSync(copy), []);
    assert.equal(statSync(copy).mode & 0o777, 0o750);
    assert.equal(git(repo, 'branch', '--list', 'paddock/job1'), '', 'the branch made for the checkout is undone');
  });
});
