/**
 * The landing operations on real agents through the Coordinator: a running
 * agent needs the decision (stop first, or land what is there), the rules
 * that enable the Land menu, and Remove from List.
 */
import * as assert from 'node:assert/strict';
import { PaddockError } from '../../../../src/core/common/errors';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { mayHaveUncommittedWork, RUNNING_CHOICE_CODE, UNCOMMITTED_CHOICE_CODE } from '../../../../src/core/operations/landingPrep';
import { canCleanUp, canCleanUpUnasked, canForget, canLand, canUpdate, forgetBlocker, hasBranch, isLive, landBlocker } from '../../../../src/core/operations/rules';
import { capabilitiesOf } from '../../../../src/ui/tree/presentation';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('landing operations', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const COMMIT_THEN_WAIT = "printf 'x\\n' > x.txt && git add -A && git commit -qm 'agent x' && sleep 30";

  it('a running agent is landed only with a decision: as it is (still running), or stopped first', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', COMMIT_THEN_WAIT], title: 'runs' });
    await sb.waitFor(job.id, (j) => j.lifecycle.state === 'running' && git(sb.repo, 'log', '-1', '--format=%s', job.branch!) === 'agent x');
    assert.ok(isLive(await sb.store.read(job.id)));
    await assert.rejects(c.merge(job.id), (e: PaddockError) => e.code === RUNNING_CHOICE_CODE && e.kind === 'usage');
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), 'init', 'nothing landed');

    const asIs = await c.merge(job.id, { running: 'as-is' });
    assert.equal(asIs.kind, 'ff');
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running', 'the agent was left running');

    const second = await c.start({ repo: sb.repo, command: ['sh', '-c', COMMIT_THEN_WAIT.replace(/x/g, 'y')], title: 'runs too' });
    await sb.waitFor(second.id, (j) => j.lifecycle.state === 'running' && git(sb.repo, 'log', '-1', '--format=%s', second.branch!) === 'agent y');
    const stopped = await c.merge(second.id, { running: 'stop' });
    assert.equal(stopped.job.lifecycle.state, 'cancelled');
    assert.equal(stopped.job.landing?.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), stopped.commit);
  });

  // Bug: with paddock.cleanUpAfterLanding "always", an agent landed as it is ("let it go on") was
  // stopped and its worktree removed right after the landing.
  it('an agent landed as it is while it runs is not cleaned up unasked; once ended it is', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', COMMIT_THEN_WAIT], title: 'goes on' });
    await sb.waitFor(job.id, (j) => j.lifecycle.state === 'running' && git(sb.repo, 'log', '-1', '--format=%s', job.branch!) === 'agent x');
    const landed = (await c.merge(job.id, { running: 'as-is' })).job;
    assert.equal(landed.lifecycle.state, 'running');
    assert.equal(canCleanUp(landed), true, 'Clean Up is still offered');
    assert.equal(canCleanUpUnasked(landed), false);
    await c.stop(job.id, { force: true });
    assert.equal(canCleanUpUnasked(await sb.waitEnded(job.id)), true);
  });

  it('the rules: nothing to land before start; Remove from List only once cleaned', async () => {
    const queued = await sb.createQueued('queued');
    assert.equal(canLand(queued), false);
    assert.match(landBlocker(queued) ?? '', /no branch/);
    assert.equal(canUpdate(queued), false);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['true'], title: 'ends' });
    const ended = await sb.waitEnded(job.id);
    assert.equal(canLand(ended), true);
    assert.equal(canUpdate(ended), true);
    assert.equal(canForget(ended), false);
    await assert.rejects(c.forget(job.id), (e: PaddockError) => e.kind === 'usage' && e.message === forgetBlocker(ended));
    const cleaned = (await c.cleanup(job.id)).job;
    assert.equal(canForget(cleaned), true);
    assert.equal(canUpdate(cleaned), false);
    await c.forget(job.id);
    await assert.rejects(sb.store.read(job.id), (e: PaddockError) => e.code === 'NOT_FOUND');
  });

  it('a branch its cleanup deleted lands again once Restore Worktree brought it back, as the refusal advised', async () => {
    const c = sb.coordinator();
    // The agent's commit is merged first, so the cleanup deletes its branch (nothing would be lost).
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'y\\n' > y.txt && git add -A && git commit -qm 'agent y'"] });
    await sb.waitEnded(job.id);
    await c.merge(job.id);
    const cleaned = (await c.cleanup(job.id)).job;
    assert.match(cleaned.cleanup?.branchOutcome ?? '', /deleted/);
    assert.equal(canLand(cleaned), false);
    assert.match(landBlocker(cleaned) ?? '', /restore it first to land its work/);
    assert.equal(hasBranch(cleaned), false, 'Copy Branch Name is not offered for a branch that is gone');
    assert.equal(capabilitiesOf(cleaned).includes('branch'), false, 'nor in the row menu');
    const restored = await c.restore(job.id);
    assert.match(restored.branchNote, /re-created/);
    const after = await sb.store.read(job.id);
    assert.equal(landBlocker(after), null, 'the Land menu is offered again');
    assert.equal(hasBranch(after), true);
    assert.equal(capabilitiesOf(after).includes('branch'), true);
    git(after.worktree!, 'commit', '-q', '--allow-empty', '-m', 'after the restore');
    const report = await c.merge(job.id);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), 'after the restore', JSON.stringify(report));
  });

  it('an edit to a file flagged assume-unchanged is uncommitted work: asked about, then committed and landed', async () => {
    const c = sb.coordinator();
    const hide = "git update-index --assume-unchanged README.md && printf 'agent\\n' > README.md";
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', hide], title: 'hidden edit' });
    const ended = await sb.waitEnded(job.id);
    assert.equal(git(ended.worktree!, 'status', '--porcelain'), '', 'git status does not show it');
    const main = git(sb.repo, 'rev-parse', 'main');
    await assert.rejects(c.merge(job.id), (e: PaddockError) => e.code === UNCOMMITTED_CHOICE_CODE);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
    const report = await c.merge(job.id, { uncommitted: 'commit' });
    assert.equal(git(sb.repo, 'show', `${report.commit}:README.md`), 'agent');
    assert.equal(git(ended.worktree!, 'ls-files', '-v', 'README.md'), 'h README.md', 'flagged again after the commit');
  });

  it("an agent that deleted its worktree's .git: landing links it again and still asks about its uncommitted work; a repository of its own is refused", async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'work\\n' > work.txt && rm .git"], title: 'cut link' });
    const ended = await sb.waitEnded(job.id);
    // A window's question before the operation reads only: it asks, and leaves the link to the operation.
    assert.equal(await mayHaveUncommittedWork(ended), true);
    assert.equal(existsSync(join(ended.worktree!, '.git')), false, 'the question wrote nothing');
    const main = git(sb.repo, 'rev-parse', 'main');
    await assert.rejects(c.merge(job.id), (e: PaddockError) => e.code === UNCOMMITTED_CHOICE_CODE);
    assert.ok(existsSync(join(ended.worktree!, '.git')), 'the operation linked it again');
    const report = await c.merge(job.id, { uncommitted: 'commit' });
    assert.equal(git(sb.repo, 'show', `${report.commit}:work.txt`), 'work');

    const own = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'mine\\n' > mine.txt && rm .git && git init -q"], title: 'own repository' });
    const ownEnded = await sb.waitEnded(own.id);
    const before = git(sb.repo, 'rev-parse', 'main');
    assert.notEqual(before, main);
    for (const land of [() => c.merge(own.id, { uncommitted: 'commit' }), () => c.apply(own.id)]) {
      await assert.rejects(land(), (e: PaddockError) => {
        assert.match(e.message, /^Agent \w+'s work cannot be read: .*\.git is a repository of its own now .*; nothing was changed — move that \.git aside first\.$/);
        return true;
      });
    }
    assert.equal(git(sb.repo, 'rev-parse', 'main'), before, 'main not moved');
    assert.equal(git(sb.repo, 'status', '--porcelain'), '', 'nothing applied');
    assert.match(git(ownEnded.worktree!, 'status', '--porcelain'), /^\?\? mine\.txt$/m, "the agent's own repository is untouched (nothing committed in it)");
  });
});
