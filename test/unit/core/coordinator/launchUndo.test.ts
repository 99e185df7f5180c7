/**
 * Undoing a launch removes its worktree and branch by force (`worktree remove --force --force`,
 * `branch -D`), so it does so only while they hold nothing but what the launch put there: the
 * worktree is on the record, open to anyone, from the moment git made it (bug 132's class: a start
 * whose worker never claimed it, or whose launcher was stopped and then continued). Real git.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OperationContext } from '../../../../src/core/operations/context';
import { ABANDONED_START_REASON } from '../../../../src/core/scheduler/abandonedStart';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { undoLaunch } from '../../../../src/core/scheduler/launch';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from './coordinatorFixture';

describe('undoing a launch keeps a worktree someone worked in (bug 132)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** An abandoned start (no worker, its launcher gone), its worktree changed by `touch` before any coordinator looks. */
  async function abandonedAfter(touch: (worktree: string) => void, copy: string[] = [], link: string[] = []): Promise<{ id: string; worktree: string }> {
    // Ignored by every worktree of the repository (info/exclude is shared): a build output, a `.env`.
    writeFileSync(join(sb.repo, '.git', 'info', 'exclude'), 'build/\n.env\n');
    const made = await sb.createAbandonedStart('never claimed');
    await sb.store.update(made.id, (j) => ({ ...j, settings: { ...j.settings, worktree: { copy, link, setup: null, setupTimeoutSeconds: 600, teardown: null } } }));
    touch(made.worktree);
    const c = sb.coordinator({}, { tickMs: 50 });
    await c.ready;
    return made;
  }

  for (const [what, touch, file] of [
    ['an untracked file', (wt: string) => writeFileSync(join(wt, 'notes.txt'), 'mine\n'), 'notes.txt'],
    ['an ignored file', (wt: string) => (mkdirSync(join(wt, 'build')), writeFileSync(join(wt, 'build', 'out.txt'), 'mine\n')), join('build', 'out.txt')],
    ['a copied file changed', (wt: string) => writeFileSync(join(wt, '.env'), 'mine\n'), '.env'],
  ] as const) {
    it(`an abandoned start whose worktree holds ${what} is failed, its worktree and branch kept`, async () => {
      writeFileSync(join(sb.repo, '.env'), 'SECRET=1\n');
      const { id, worktree } = await abandonedAfter(touch, ['.env']);
      const failed = await sb.waitEnded(id, 10_000);
      assert.equal(failed.lifecycle.state, 'failed');
      assert.ok((lifecycleDetail(failed) ?? '').startsWith(`${ABANDONED_START_REASON}; its worktree and branch paddock/${id} are kept, `), lifecycleDetail(failed) ?? '');
      assert.equal(failed.worktree, worktree);
      assert.equal(readFileSync(join(worktree, file), 'utf8'), 'mine\n');
      assert.ok(sb.branches().includes(`paddock/${id}`));
    });
  }

  it('an abandoned start whose branch was committed on and reset back is kept: the commit lives in its reflog', async () => {
    const { id, worktree } = await abandonedAfter((wt) => {
      writeFileSync(join(wt, 'a.txt'), 'a\n');
      git(wt, 'add', 'a.txt');
      git(wt, 'commit', '-qm', 'mine');
      git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    });
    const failed = await sb.waitEnded(id, 10_000);
    assert.match(lifecycleDetail(failed) ?? '', /are kept, branch paddock\/\S+ has been at other commits since the launch made it/);
    assert.ok(existsSync(worktree));
  });

  it('an abandoned start holding only the files the launch copied in (the same bytes) is undone', async () => {
    writeFileSync(join(sb.repo, '.env'), 'SECRET=1\n');
    const { id, worktree } = await abandonedAfter((wt) => writeFileSync(join(wt, '.env'), 'SECRET=1\n'), ['.env']);
    const failed = await sb.waitEnded(id, 10_000);
    assert.equal(failed.lifecycle.detail, ABANDONED_START_REASON);
    assert.ok(!existsSync(worktree), 'the worktree the launch made is removed');
    assert.deepEqual(sb.branches(), ['main']);
  });

  /** A submodule `sub` committed in the main repository (not checked out by a launch). */
  function withSubmodule(): void {
    const src = `${sb.repo}.subsrc`;
    mkdirSync(src);
    git(src, 'init', '-q', '-b', 'main');
    writeFileSync(join(src, 'lib.txt'), 'v1\n');
    git(src, 'add', '.');
    git(src, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'lib');
    execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', src, 'sub'], { cwd: sb.repo });
    git(sb.repo, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'sub');
  }

  // Each is a guard of launchWorktreeTouched: with it gone, the worktree (and what is in it) is removed.
  for (const [what, touch, why, setup] of [
    ['a checked-out submodule with an edit in it', (wt: string) => (execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init'], { cwd: wt }), writeFileSync(join(wt, 'sub', 'lib.txt'), 'mine\n')), /holds submodule repositories|submodule sub/, withSubmodule],
    ['a submodule committed in, then deinitialised (its repository stays in modules/)', (wt: string) => (execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init'], { cwd: wt }), writeFileSync(join(wt, 'sub', 'lib.txt'), 'mine\n'), git(join(wt, 'sub'), '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qam', 'mine'), git(wt, 'submodule', 'deinit', '-q', '-f', 'sub')), /holds submodule repositories/, withSubmodule],
    ['a repository cloned where its submodule goes', (wt: string) => execFileSync('git', ['clone', '-q', `${sb.repo}.subsrc`, join(wt, 'sub')]), /its submodule sub has been checked out/, withSubmodule],
    ['a ref of its own (refs/worktree/)', (wt: string) => git(wt, 'update-ref', 'refs/worktree/mine', 'HEAD'), /its own ref refs\/worktree\/mine/],
    ['a lock (git worktree lock)', (wt: string) => git(wt, 'worktree', 'lock', wt), /it is locked/],
    ['reflogs turned off', () => git(sb.repo, 'config', 'core.logAllRefUpdates', 'false'), /reflogs are off/],
    ['an empty folder', (wt: string) => mkdirSync(join(wt, 'mine')), /mine\/ in it is a folder/],
    ['folders holding only a folder', (wt: string) => mkdirSync(join(wt, 'a', 'b'), { recursive: true }), /a\/ in it is a folder/],
    ['a copied file changed to other bytes of the same size', (wt: string) => writeFileSync(join(wt, '.env'), 'SECRET=2\n'), /\.env in it is not/],
    ['a file where the launch links one', (wt: string) => writeFileSync(join(wt, 'data.db'), 'mine\n'), /data\.db in it is not/],
    ['a commit made on a detached HEAD, the branch checked out again', (wt: string) => (git(wt, 'checkout', '-q', '--detach'), writeFileSync(join(wt, 'a.txt'), 'a\n'), git(wt, 'add', 'a.txt'), git(wt, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'mine'), git(wt, 'checkout', '-q', '-')), /its HEAD has been at other commits/],
    ['a bisect under way', (wt: string) => git(wt, 'bisect', 'start'), /bisect/i],
    ['its base checked out detached', (wt: string) => git(wt, 'checkout', '-q', '--detach'), /another commit checked out/],
  ] as const) {
    it(`an abandoned start whose worktree holds ${what} is kept`, async () => {
      writeFileSync(join(sb.repo, '.env'), 'SECRET=1\n');
      writeFileSync(join(sb.repo, 'data.db'), 'shared\n');
      if (setup) setup();
      const { id, worktree } = await abandonedAfter(touch, ['.env'], ['data.db']);
      const failed = await sb.waitEnded(id, 10_000);
      assert.match(lifecycleDetail(failed) ?? '', /are kept, /);
      assert.match(lifecycleDetail(failed) ?? '', why);
      assert.ok(existsSync(worktree), 'the worktree is kept');
      assert.ok(sb.branches().includes(`paddock/${id}`), 'the branch is kept');
    });
  }

  it('a launcher whose agent was retried meanwhile undoes nothing: the worktree is the retry\'s', async () => {
    const { id, worktree } = await sb.createAbandonedStart('retried meanwhile');
    const launched = await sb.store.read(id);
    await sb.store.transition(id, 'failed', { detail: 'failed by another process' });
    await sb.store.beginGeneration(id);
    await sb.store.transition(id, 'starting', { detail: 'the retry' }, { expectFrom: ['queued'] });
    const ctx = { store: sb.store, log: () => undefined, changed: () => undefined } as unknown as OperationContext;
    await undoLaunch(ctx, launched, true, 'the first launch failed');
    const now = await sb.store.read(id);
    assert.equal(now.lifecycle.state, 'starting', 'the retry is not failed');
    assert.ok(existsSync(worktree), 'the retry\'s worktree stays');
  });

  it('once Clean Up has captured and removed a kept worktree, its detail no longer says it is kept', async () => {
    const { id, worktree } = await abandonedAfter((wt) => writeFileSync(join(wt, 'notes.txt'), 'mine\n'));
    const failed = await sb.waitEnded(id, 10_000);
    assert.match(lifecycleDetail(failed) ?? '', /are kept, .*paddock cleanup captures the work in them before it removes the worktree/);
    // Kept in a field of its own: the stored detail says only why the launch failed (keptWorktree.ts).
    assert.equal(failed.lifecycle.detail, ABANDONED_START_REASON);
    assert.deepEqual(failed.keptWorktree && [failed.keptWorktree.branch, failed.keptWorktree.generation], [`paddock/${id}`, 1]);
    const done = await runCli(['cleanup', id, '--yes'], { cwd: sb.repo, env: sb.env });
    assert.equal(done.code, 0, done.stderr);
    await sb.waitFor(id, (j) => j.cleanup?.phase === 'complete', 20_000);
    assert.ok(!existsSync(worktree));
    assert.notEqual(git(sb.repo, 'for-each-ref', 'refs/paddock', '--format=%(refname)').trim(), '', 'its work was captured first');
    const shown = JSON.parse((await runCli(['show', id, '--json'], { cwd: sb.repo, env: sb.env })).stdout);
    assert.equal(shown.lifecycle?.detail ?? shown.detail, ABANDONED_START_REASON);
  });
});
