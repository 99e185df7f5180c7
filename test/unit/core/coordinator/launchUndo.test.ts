/**
 * Undoing a launch removes its worktree and branch by force (`worktree remove --force --force`,
 * `branch -D`), so it does so only while they hold nothing but what the launch put there: the
 * worktree is on the record, open to anyone, from the moment git made it (bug 132's class: a start
 * whose worker never claimed it, or whose launcher was stopped and then continued). Real git.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ABANDONED_START_REASON } from '../../../../src/core/scheduler/abandonedStart';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from './coordinatorFixture';

describe('undoing a launch keeps a worktree someone worked in (bug 132)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** An abandoned start (no worker, its launcher gone), its worktree changed by `touch` before any coordinator looks. */
  async function abandonedAfter(touch: (worktree: string) => void, copy: string[] = []): Promise<{ id: string; worktree: string }> {
    // Ignored by every worktree of the repository (info/exclude is shared): a build output, a `.env`.
    writeFileSync(join(sb.repo, '.git', 'info', 'exclude'), 'build/\n.env\n');
    const made = await sb.createAbandonedStart('never claimed');
    await sb.store.update(made.id, (j) => ({ ...j, settings: { ...j.settings, worktree: { copy, link: [], setup: null, setupTimeoutSeconds: 600, teardown: null } } }));
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
      assert.ok((failed.lifecycle.detail ?? '').startsWith(`${ABANDONED_START_REASON}; its worktree and branch paddock/${id} are kept, `), failed.lifecycle.detail ?? '');
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
    assert.match(failed.lifecycle.detail ?? '', /are kept, branch paddock\/\S+ has been at other commits since the launch made it/);
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
});
