import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { addWorktree, listWorktrees, removeWorktree } from '../../../../src/core/git/worktree';
import { deleteBranch } from '../../../../src/core/git/branch';
import { Sandbox, useGitSandbox, git, write } from './gitTestUtil';
import { mountTmpfsOrSkip } from '../store/fullDisk';

describe('git/worktree', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  const timers: NodeJS.Timeout[] = [];
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'src/a.txt': 'a\n' });
    base = git(repo, 'rev-parse', 'HEAD');
  });
  afterEach(() => {
    for (const t of timers.splice(0)) clearTimeout(t);
  });

  const registered = async (p: string) => (await listWorktrees(repo)).some((e) => e.path === p);

  /**
   * What git leaves for a few milliseconds while it adds a worktree: the registration's gitdir and
   * HEAD written, commondir made but not yet filled. git 2.39 dies on it in every command that reads
   * the worktree list (`worktree add`/`remove`/`list`, `branch -D`): deterministic here. Returns what
   * fills it, as the add does a moment later.
   */
  function halfRegisteredSibling(): () => void {
    const admin = path.join(repo, '.git', 'worktrees', 'sibling');
    const sibling = sb.path('wts', 'sibling');
    mkdirSync(admin, { recursive: true });
    mkdirSync(sibling, { recursive: true });
    writeFileSync(path.join(admin, 'gitdir'), `${path.join(sibling, '.git')}\n`);
    writeFileSync(path.join(admin, 'HEAD'), `${base}\n`);
    writeFileSync(path.join(sibling, '.git'), `gitdir: ${admin}\n`);
    writeFileSync(path.join(admin, 'commondir'), '');
    return () => writeFileSync(path.join(admin, 'commondir'), '../..\n');
  }

  it('every git call that reads the worktree list waits out a sibling being registered: branch -D, worktree remove', async () => {
    const wt = sb.path('wts', 'r1');
    await addWorktree(repo, { path: wt, branch: 'paddock/r1', baseSha: base });
    git(repo, 'branch', 'paddock/gone');
    const complete = halfRegisteredSibling();
    assert.throws(() => git(repo, 'worktree', 'list'), /failed to read .*commondir/, 'the half-written registration does not trip git: this test tests nothing');
    timers.push(setTimeout(complete, 300));
    const removed = removeWorktree(repo, wt);
    const deleted = deleteBranch(repo, 'paddock/gone', { force: true });
    assert.equal((await removed).outcome, 'removed');
    await deleted;
    assert.equal(git(repo, 'branch', '--list', 'paddock/gone'), '');
    assert.equal(existsSync(wt), false);
  });

  describe('addWorktree', () => {
    it('creates the worktree on a new branch at the base', async () => {
      const wt = sb.path('wts', 'j1');
      await addWorktree(repo, { path: wt, branch: 'paddock/j1', baseSha: base });
      assert.equal(git(wt, 'rev-parse', 'HEAD'), base);
      assert.equal(git(wt, 'symbolic-ref', 'HEAD'), 'refs/heads/paddock/j1');
      assert.ok(await registered(wt));
    });

    it('is not blocked by an index.lock in the main worktree', async () => {
      writeFileSync(path.join(repo, '.git', 'index.lock'), '');
      const wt = sb.path('wts', 'j2');
      await addWorktree(repo, { path: wt, branch: 'paddock/j2', baseSha: base, lockWaitMs: 0 });
      assert.ok(existsSync(path.join(wt, 'README.md')));
    });

    it('retries while a concurrent git operation holds the ref lock, then succeeds', async () => {
      const lock = path.join(repo, '.git', 'refs', 'heads', 'paddock', 'j3.lock');
      mkdirSync(path.dirname(lock), { recursive: true });
      writeFileSync(lock, '');
      timers.push(setTimeout(() => rmSync(lock), 400));
      const wt = sb.path('wts', 'j3');
      await addWorktree(repo, { path: wt, branch: 'paddock/j3', baseSha: base, lockWaitMs: 10_000 });
      assert.equal(git(wt, 'rev-parse', 'HEAD'), base);
    });

    // Measured on git 2.39: twenty adds side by side failed by the dozen, "fatal: failed to read
    // .git/worktrees/<sibling>/commondir: Success" (a sibling's registration half-written). The
    // scheduler launches queued agents side by side.
    it('twenty adds side by side in one repository all succeed, each with its own branch and folder', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `par${i}`);
      const results = await Promise.allSettled(ids.map((id) => addWorktree(repo, { path: sb.path('wts', id), branch: `paddock/${id}`, baseSha: base, lockWaitMs: 20_000 })));
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [`${ids[i]}: ${(r.reason as Error).message}`] : []));
      assert.deepEqual(failed, []);
      for (const id of ids) {
        assert.equal(git(sb.path('wts', id), 'rev-parse', '--abbrev-ref', 'HEAD'), `paddock/${id}`);
        assert.ok(existsSync(path.join(sb.path('wts', id), 'README.md')));
      }
    });

    it('waits out a sibling worktree whose registration another add is still writing (its commondir still empty)', async () => {
      const complete = halfRegisteredSibling();
      timers.push(setTimeout(complete, 300));
      const wt = sb.path('wts', 'j6');
      await addWorktree(repo, { path: wt, branch: 'paddock/j6', baseSha: base, lockWaitMs: 10_000 });
      assert.equal(git(wt, 'rev-parse', 'HEAD'), base);
    });

    it('fails clearly when the lock stays, leaving no folder and no branch', async () => {
      const lock = path.join(repo, '.git', 'refs', 'heads', 'paddock', 'j4.lock');
      mkdirSync(path.dirname(lock), { recursive: true });
      writeFileSync(lock, '');
      const wt = sb.path('wts', 'j4');
      await assert.rejects(addWorktree(repo, { path: wt, branch: 'paddock/j4', baseSha: base, lockWaitMs: 300 }), (err: Error) => {
        assert.match(err.message, /another git operation holds a lock/);
        return true;
      });
      assert.equal(existsSync(wt), false);
      assert.equal(git(repo, 'branch', '--list', 'paddock/j4'), '');
    });

    it('a failed add (worktree root under a file) leaves no branch, registration or folder', async () => {
      // git creates the branch before it finds it cannot make the folder.
      writeFileSync(sb.path('plain-file'), '');
      const wt = sb.path('plain-file', 'trees', 'j5');
      await assert.rejects(addWorktree(repo, { path: wt, branch: 'paddock/j5', baseSha: base }), /Could not create the worktree .*Not a directory/);
      assert.equal(git(repo, 'branch', '--list', 'paddock/j5'), '');
      assert.equal(await registered(wt), false);
    });

    it("a post-checkout hook that fails is named as the cause, and its checkout is undone (no branch, registration or folder)", async () => {
      // git checks the worktree out, then the hook's exit status becomes its own.
      write(repo, '.git/hooks/post-checkout', '#!/bin/sh\necho "husky: node_modules missing" >&2\nexit 3\n');
      chmodSync(path.join(repo, '.git/hooks/post-checkout'), 0o755);
      const wt = sb.path('trees', 'hooked');
      await assert.rejects(addWorktree(repo, { path: wt, branch: 'paddock/hooked', baseSha: base }), (e: Error) => {
        assert.equal(e.message, `Could not create the worktree ${wt}: the repository's post-checkout hook failed (exit 3): husky: node_modules missing`);
        return true;
      });
      assert.equal(git(repo, 'branch', '--list', 'paddock/hooked'), '');
      assert.equal(await registered(wt), false);
      assert.equal(existsSync(wt), false);
    });

    it('a failed add on a read-only file system leaves no branch, registration or folder (root only)', async function () {
      const ro = sb.path('ro');
      mkdirSync(ro);
      mountTmpfsOrSkip(this, ro, 'ro,size=1m');
      try {
        const wt = path.join(ro, 'trees', 'j6');
        await assert.rejects(addWorktree(repo, { path: wt, branch: 'paddock/j6', baseSha: base }), /Read-only file system/);
        assert.equal(git(repo, 'branch', '--list', 'paddock/j6'), '');
        assert.equal(await registered(wt), false);
      } finally {
        execFileSync('umount', [ro]);
      }
    });

    it('a failed add leaves an existing branch of the same name alone', async () => {
      git(repo, 'branch', 'paddock/j7');
      await assert.rejects(addWorktree(repo, { path: sb.path('j7'), branch: 'paddock/j7', baseSha: base }), /already exists/);
      assert.equal(git(repo, 'branch', '--list', 'paddock/j7').trim(), 'paddock/j7');
      assert.equal(existsSync(sb.path('j7')), false);
    });

    it('rejects bad input and existing paths with one sentence', async () => {
      await assert.rejects(addWorktree(repo, { path: sb.path('x'), branch: 'bad..name', baseSha: base }), /not a valid branch name/);
      await assert.rejects(addWorktree(repo, { path: sb.path('x'), branch: 'ok', baseSha: 'HEAD' }), /not a full commit sha/);
      await assert.rejects(addWorktree(repo, { path: repo, branch: 'ok2', baseSha: base }), /already exists/);
      await addWorktree(repo, { path: sb.path('y'), branch: 'dup', baseSha: base });
      await assert.rejects(addWorktree(repo, { path: sb.path('z'), branch: 'dup', baseSha: base }), /already exists/);
    });
  });

  describe('removeWorktree', () => {
    async function make(name: string): Promise<string> {
      const wt = sb.path('wts', name);
      await addWorktree(repo, { path: wt, branch: `paddock/${name}`, baseSha: base });
      return wt;
    }

    it('removes a clean worktree', async () => {
      const wt = await make('clean');
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'removed' });
      assert.equal(existsSync(wt), false);
      assert.equal(await registered(wt), false);
    });

    it('removes a dirty worktree (modified, untracked, ignored, staged)', async () => {
      const wt = await make('dirty');
      write(wt, 'README.md', 'changed\n');
      write(wt, 'untracked/x.txt', 'x\n');
      write(wt, '.gitignore', '*.log\n');
      write(wt, 'noise.log', 'ignored\n');
      write(wt, 'staged.txt', 's\n');
      git(wt, 'add', 'staged.txt');
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'removed' });
      assert.equal(existsSync(wt), false);
    });

    it('removes a locked worktree', async () => {
      const wt = await make('locked');
      git(repo, 'worktree', 'lock', '--reason', 'someone is busy', wt);
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'removed' });
      assert.equal(await registered(wt), false);
    });

    it('removes a worktree that contains a submodule', async () => {
      const sub = sb.repo({ 'lib.txt': 'lib\n' }, 'sublib');
      const wt = await make('withsub');
      git(wt, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', sub, 'vendor/lib');
      git(wt, 'commit', '-q', '-m', 'add submodule');
      assert.ok(existsSync(path.join(wt, 'vendor', 'lib', 'lib.txt')));
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'removed' });
      assert.equal(existsSync(wt), false);
      assert.equal(await registered(wt), false);
    });

    it('prunes a worktree whose folder was deleted by hand, so its branch can then be deleted', async () => {
      const wt = await make('byhand');
      rmSync(wt, { recursive: true, force: true });
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'already-gone-pruned' });
      assert.equal(await registered(wt), false);
      await deleteBranch(repo, 'paddock/byhand', { force: false });
      assert.equal(git(repo, 'branch', '--list', 'paddock/byhand'), '');
    });

    it('prunes a locked worktree whose folder was deleted by hand', async () => {
      const wt = await make('lockedgone');
      git(repo, 'worktree', 'lock', wt);
      rmSync(wt, { recursive: true, force: true });
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'already-gone-pruned' });
      assert.equal(await registered(wt), false);
    });

    it('is idempotent: a second removal says already gone', async () => {
      const wt = await make('twice');
      await removeWorktree(repo, wt);
      assert.deepEqual(await removeWorktree(repo, wt), { outcome: 'already-gone-pruned' });
    });

    it('never removes the main worktree or a folder that is not a worktree', async () => {
      await assert.rejects(removeWorktree(repo, repo), /main working tree/);
      const stranger = sb.path('not-a-worktree');
      write(stranger, 'precious.txt', 'keep me\n');
      await assert.rejects(removeWorktree(repo, stranger), /not a worktree/);
      assert.ok(existsSync(path.join(stranger, 'precious.txt')));
      assert.ok(existsSync(path.join(repo, 'README.md')));
    });
  });
});
