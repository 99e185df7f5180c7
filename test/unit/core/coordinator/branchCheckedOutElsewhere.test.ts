/**
 * A cleanup whose branch git will not delete because another worktree has it checked out (a
 * restored copy, the person's main worktree, a registration whose folder is gone) keeps the
 * branch and completes, saying where it is checked out: before, it stayed incomplete at removing
 * and was retried forever, holding a capacity slot. A detached HEAD elsewhere holds nothing.
 */
import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { branchDeletedByCleanup } from '../../../../src/core/operations/rules';
import { lookOf } from '../../../../src/ui/tree/presentation';
import { CoordinatorSandbox, useCoordinatorSandbox, git } from './coordinatorFixture';

describe('Coordinator: cleanup of a branch checked out in another worktree', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** An ended agent that committed nothing: its branch's commits are all on main. */
  async function endedAgent() {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo m > work.txt'] });
    const done = await sb.waitEnded(job.id);
    return { c, job: done, branch: `paddock/${job.id}` };
  }

  /** The cleanup finished, the branch is still there and the record says it was kept, and where. */
  function assertKept(job: Awaited<ReturnType<typeof endedAgent>>['job'], branch: string, where: RegExp) {
    assert.equal(job.cleanup?.phase, 'complete', job.cleanup?.lastError ?? '');
    assert.deepEqual(job.cleanup?.remaining, []);
    assert.equal(job.cleanup?.lastError, null);
    assert.match(job.cleanup?.branchOutcome ?? '', /^branch kept: checked out at /);
    assert.match(job.cleanup?.branchOutcome ?? '', where);
    assert.equal(branchDeletedByCleanup(job), false, 'landing and Copy Branch Name still see the branch');
    assert.match(lookOf(job, Date.now()).description ?? '', /cleaned · branch kept/);
    assert.ok(sb.branches().includes(branch));
    assert.equal(existsSync(job.worktree!), false);
  }

  it('cleanup, restore --to a copy, restore, cleanup: the branch checked out in the copy is kept and the cleanup completes', async () => {
    const { c, job, branch } = await endedAgent();
    assert.equal((await c.cleanup(job.id)).job.cleanup?.phase, 'complete');
    const copy = join(sb.root, 'copy');
    await c.restore(job.id, copy);
    await c.restore(job.id);
    assert.equal(git(copy, 'symbolic-ref', '--short', 'HEAD'), branch, 'the copy has the branch checked out');
    const report = await c.cleanup(job.id);
    assertKept(report.job, branch, /copy'/);
    assert.ok(report.notes.some((n) => /^branch kept: checked out at .*copy'$/.test(n)), report.notes.join('; '));
    assert.equal(git(copy, 'symbolic-ref', '--short', 'HEAD'), branch, 'the copy is left as it was');
    // Nothing left to retry: a second cleanup finds it complete.
    assert.equal((await c.cleanup(job.id)).alreadyComplete, true);
  });

  it('a branch the person checked out in the main worktree is kept, also when its deletion was asked for', async () => {
    const { c, job, branch } = await endedAgent();
    git(sb.repo, 'checkout', '-q', '--ignore-other-worktrees', branch);
    const report = await c.cleanup(job.id, { deleteBranch: true });
    assertKept(report.job, branch, new RegExp(`${sb.repo.split('/').pop()}'`));
    assert.equal(git(sb.repo, 'symbolic-ref', '--short', 'HEAD'), branch);
  });

  it("a branch held by another worktree's registration whose folder is gone is kept, and that registration is left alone", async () => {
    const { c, job, branch } = await endedAgent();
    const gone = join(sb.root, 'on-a-drive-away');
    git(sb.repo, 'worktree', 'add', '-q', '--force', gone, branch);
    rmSync(gone, { recursive: true, force: true });
    const report = await c.cleanup(job.id);
    assertKept(report.job, branch, /on-a-drive-away'.*folder is gone.*git worktree prune/);
    assert.ok(sb.worktrees().some((w) => w.endsWith('on-a-drive-away')), 'the registration of the person is not pruned');
  });

  it('a detached HEAD elsewhere at the same commit holds nothing: the branch is deleted', async () => {
    const { c, job, branch } = await endedAgent();
    const look = join(sb.root, 'look');
    git(sb.repo, 'worktree', 'add', '-q', '--detach', look, branch);
    const tip = git(sb.repo, 'rev-parse', branch);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.phase, 'complete', report.job.cleanup?.lastError ?? '');
    assert.match(report.job.cleanup?.branchOutcome ?? '', /deleted \(all its commits are reachable elsewhere\)/);
    assert.equal(sb.branches().includes(branch), false);
    assert.equal(git(look, 'rev-parse', 'HEAD'), tip, 'the detached worktree is left as it was');
  });

  it("the base of another agent is not checked out by it: the first agent's cleanup completes as ever", async () => {
    const a = await endedAgent();
    const b = await a.c.start({ repo: sb.repo, base: a.branch, command: ['true'] });
    await sb.waitEnded(b.id);
    const report = await a.c.cleanup(a.job.id);
    assert.equal(report.job.cleanup?.phase, 'complete', report.job.cleanup?.lastError ?? '');
    assert.match(report.job.cleanup?.branchOutcome ?? '', /deleted \(all its commits are reachable elsewhere\)/);
    assert.ok(existsSync(b.worktree!), "the other agent's worktree is untouched");
  });
});
