/**
 * Landing from an agent's worktree that a git operation stopped half-way in
 * (an update's conflict), that holds unmerged files, or whose HEAD is away
 * from the agent's branch: every landing operation refuses in one sentence
 * and nothing changes — no conflict markers land, no work is committed where
 * the landing would leave it behind.
 */
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import type { Coordinator } from '../../../../src/core/coordinator';
import type { JobRecord } from '../../../../src/core/store';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('operations: the state of the agent’s worktree before a landing', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** An ended agent that committed `shared.txt` = agent; main then commits shared.txt = main (a conflict); a bare remote for pull requests. */
  async function conflictingAgent(c: Coordinator): Promise<JobRecord> {
    writeFileSync(join(sb.repo, 'shared.txt'), 'base\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-q', '-m', 'shared');
    const remote = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', remote);
    git(sb.repo, 'remote', 'add', 'origin', remote);
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'agent\\n' > shared.txt && git commit -qam 'agent edits shared'"], title: 'conflicts' });
    const ended = await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'shared.txt'), 'main\n');
    git(sb.repo, 'commit', '-q', '-am', 'main edits shared');
    return ended;
  }

  /** Everything a refused landing must leave as it was. */
  function snapshot(job: JobRecord) {
    const wt = job.worktree!;
    return {
      main: git(sb.repo, 'rev-parse', 'main'),
      branch: git(sb.repo, 'rev-parse', job.branch!),
      head: git(wt, 'rev-parse', 'HEAD'),
      status: git(wt, 'status', '--porcelain'),
      remote: git(join(sb.root, 'remote.git'), 'for-each-ref'),
      mainStatus: git(sb.repo, 'status', '--porcelain'),
    };
  }

  /** Every landing operation, with the choices that would take the uncommitted work. */
  function everyLanding(c: Coordinator, id: string): [string, () => Promise<unknown>][] {
    return [
      ['merge --commit-uncommitted', () => c.merge(id, { uncommitted: 'commit' })],
      ['merge --commits-only', () => c.merge(id, { uncommitted: 'commits-only' })],
      ['squash', () => c.merge(id, { uncommitted: 'commit', strategy: 'squash' })],
      ['rebase', () => c.merge(id, { uncommitted: 'commit', strategy: 'rebase' })],
      ['ff-only', () => c.merge(id, { uncommitted: 'commit', strategy: 'ff-only' })],
      ['pr --commit-uncommitted', () => c.pullRequest(id, { uncommitted: 'commit' })],
      ['update --commit-uncommitted', () => c.update(id, { commitUncommitted: true })],
      ['apply', () => c.apply(id)],
    ];
  }

  async function assertAllRefused(c: Coordinator, job: JobRecord, message: RegExp, code: string) {
    const before = snapshot(job);
    for (const [name, land] of everyLanding(c, job.id)) {
      await assert.rejects(land(), (e: PaddockError) => {
        assert.equal(e.code, code, `${name}: ${e.message}`);
        assert.match(e.message, message, name);
        assert.equal(e.message.split('\n').length, 1);
        return true;
      });
      assert.deepEqual(snapshot(job), before, `${name} changed nothing`);
    }
    assert.equal((await sb.store.read(job.id)).landing ?? null, null, 'no landing recorded');
  }

  it('after an update stopped on a conflict (a merge in progress), every landing is refused and no conflict marker lands', async () => {
    const c = sb.coordinator();
    const job = await conflictingAgent(c);
    await assert.rejects(c.update(job.id), (e: PaddockError) => e.code === 'LANDING_CONFLICT');
    assert.match(git(job.worktree!, 'status', '--porcelain'), /^UU shared\.txt$/m);
    await assertAllRefused(c, job, /^Agent \w+'s worktree .* has a merge in progress; finish or abort it there first — nothing was changed\.$/, 'WORKTREE_BUSY');
    assert.doesNotMatch(git(sb.repo, 'log', '-p', 'main'), /<<<<<<</);
  });

  it('after a rebase update stopped on a conflict, every landing is refused and nothing is committed on the detached HEAD', async () => {
    const c = sb.coordinator();
    const job = await conflictingAgent(c);
    await assert.rejects(c.update(job.id, { rebase: true }), (e: PaddockError) => e.code === 'LANDING_CONFLICT');
    await assertAllRefused(c, job, /has a rebase in progress; finish or abort it there first/, 'WORKTREE_BUSY');
  });

  it('unmerged files without an operation in progress (a stash pop that conflicted) are refused, named', async () => {
    const c = sb.coordinator();
    const job = await conflictingAgent(c);
    const wt = job.worktree!;
    writeFileSync(join(wt, 'shared.txt'), 'stashed\n');
    git(wt, 'stash', '-q');
    git(wt, 'merge', '-q', '--no-edit', 'main', '-X', 'theirs');
    assert.throws(() => git(wt, 'stash', 'pop', '-q'));
    assert.match(git(wt, 'status', '--porcelain'), /^UU shared\.txt$/m);
    await assertAllRefused(c, job, /has unmerged files \(shared\.txt\), conflict markers perhaps; resolve them there first — nothing was changed\.$/, 'WORKTREE_BUSY');
  });

  it("a worktree switched to another branch with uncommitted work: landing the agent's branch is refused (the work would be committed where it is not landed)", async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'a\\n' > a.txt && git add -A && git commit -qm 'agent a'"], title: 'switches' });
    const ended = await sb.waitEnded(job.id);
    const wt = ended.worktree!;
    git(wt, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(wt, 'w.txt'), 'w\n');
    const before = { main: git(sb.repo, 'rev-parse', 'main'), other: git(sb.repo, 'rev-parse', 'other') };
    for (const land of [() => c.merge(job.id, { uncommitted: 'commit' }), () => c.update(job.id, { commitUncommitted: true })]) {
      await assert.rejects(land(), (e: PaddockError) => {
        assert.equal(e.code, 'WORKTREE_AWAY');
        assert.match(e.message, new RegExp(`^Agent \\w+'s worktree .* is on branch other, not the agent's branch ${ended.branch}`));
        return true;
      });
    }
    assert.deepEqual({ main: git(sb.repo, 'rev-parse', 'main'), other: git(sb.repo, 'rev-parse', 'other') }, before, 'nothing committed or landed');
    assert.match(git(wt, 'status', '--porcelain'), /^\?\? w\.txt$/m);

    // Commits on the other branch: landing the agent's branch would leave them behind, whatever is chosen for uncommitted work.
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'w on other');
    await assert.rejects(c.merge(job.id, { uncommitted: 'commits-only' }), (e: PaddockError) => e.code === 'WORKTREE_AWAY' && /with commits that branch lacks/.test(e.message));
    assert.equal(git(sb.repo, 'rev-parse', 'main'), before.main);

    // Detached at the branch's tip with nothing of its own: nothing is left behind, the landing goes ahead.
    git(wt, 'checkout', '-q', '--detach', ended.branch!);
    assert.ok(!existsSync(join(wt, 'w.txt')));
    const landed = await c.merge(job.id);
    assert.equal(landed.kind, 'ff');
    assert.equal(git(sb.repo, 'show', 'main:a.txt'), 'a');
  });
});
