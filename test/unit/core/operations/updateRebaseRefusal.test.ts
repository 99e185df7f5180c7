/**
 * Update from Base with --rebase refuses an agent's branch that holds merge commits (a rebase would
 * drop what they carry) before anything changes (bug 96's sibling): with --commit-uncommitted the
 * agent's work was committed on its branch first, and the refusal then said *nothing was changed*.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PaddockError } from '../../../../src/core/common/errors';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('update --rebase: refused before the agent’s work is committed', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a branch with a merge commit: REBASE_MERGES, its branch and its uncommitted work as they were; without --rebase it merges', async () => {
    const c = sb.coordinator();
    const merges = "echo 1 > one && git add -A && git commit -qm one && git checkout -q -b side && echo 2 > two && git add -A && git commit -qm two && git checkout -q - && git merge -q --no-ff -m merged side && echo d > d.txt";
    const a = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['sh', '-c', merges], title: 'merges' })).id);
    writeFileSync(join(sb.repo, 'base.txt'), 'base\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-q', '-m', 'base moves');
    const tip = git(sb.repo, 'rev-parse', a.branch!);
    await assert.rejects(c.update(a.id, { rebase: true, commitUncommitted: true }), (e: PaddockError) => e.code === 'REBASE_MERGES' && /nothing was changed/.test(e.message));
    assert.equal(git(sb.repo, 'rev-parse', a.branch!), tip, 'its work was not committed');
    assert.equal(git(a.worktree!, 'status', '--porcelain'), '?? d.txt');
    const merged = await c.update(a.id, { commitUncommitted: true });
    assert.equal(merged.updated, true);
    assert.equal(git(a.worktree!, 'status', '--porcelain'), '');
  });

  it('a branch with a merge commit already up to date with its base: not refused, its work committed, nothing rebased', async () => {
    const c = sb.coordinator();
    const merges = "echo 1 > one && git add -A && git commit -qm one && git checkout -q -b side && echo 2 > two && git add -A && git commit -qm two && git checkout -q - && git merge -q --no-ff -m merged side && echo d > d.txt";
    const a = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['sh', '-c', merges], title: 'merges, base still' })).id);
    const tip = git(sb.repo, 'rev-parse', a.branch!);
    const res = await c.update(a.id, { rebase: true, commitUncommitted: true });
    assert.equal(res.updated, false);
    assert.equal(git(sb.repo, 'rev-parse', `${a.branch!}^`), tip, 'its work committed on its tip');
    assert.equal(git(a.worktree!, 'status', '--porcelain'), '');
  });
});
