/**
 * Merge asks its read-only questions at once; these pin what must not move
 * with that: refusals come in their old order and change nothing, a commit of
 * the agent's uncommitted work still comes before the target is checked (and
 * before its tip is read: the commit is landed), and what was read about the
 * branches before that commit is read again after it.
 */
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { UNCOMMITTED_CHOICE_CODE } from '../../../../src/core/operations/landingPrep';
import type { JobRecord } from '../../../../src/core/store/schema';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('merge: concurrent reads keep the order of refusals and changes', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** An ended agent with one commit (x.txt) and an untracked file (u.txt) left uncommitted. */
  async function agentWithUncommittedWork(): Promise<JobRecord> {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'x\\n' > x.txt && git add -A && git commit -qm 'agent x' && printf 'u\\n' > u.txt"], title: 'work' });
    const ended = await sb.waitEnded(job.id);
    assert.ok(existsSync(join(ended.worktree!, 'u.txt')));
    return ended;
  }

  const status = (dir: string): string => git(dir, 'status', '--porcelain');

  it('a bad --into is refused before the uncommitted-work question, and changes nothing', async () => {
    const job = await agentWithUncommittedWork();
    const tip = git(sb.repo, 'rev-parse', job.branch!);
    await assert.rejects(sb.coordinator().merge(job.id, { into: 'nope' }), (e: PaddockError) => e.kind === 'usage' && /no branch 'nope'/.test(e.message));
    await assert.rejects(sb.coordinator().merge(job.id, { into: 'nope', uncommitted: 'commit' }), (e: PaddockError) => e.kind === 'usage' && /no branch 'nope'/.test(e.message));
    assert.equal(git(sb.repo, 'rev-parse', job.branch!), tip, 'nothing committed');
    assert.equal(status(job.worktree!), '?? u.txt');
  });

  it('uncommitted work without a choice is refused before a dirty target, and changes nothing', async () => {
    const job = await agentWithUncommittedWork();
    writeFileSync(join(sb.repo, 'README.md'), 'edited\n');
    const main = git(sb.repo, 'rev-parse', 'main');
    await assert.rejects(sb.coordinator().merge(job.id), (e: PaddockError) => e.code === UNCOMMITTED_CHOICE_CODE);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
    assert.equal(status(job.worktree!), '?? u.txt');
    assert.equal(status(sb.repo), 'M README.md');
  });

  it('with --commit-uncommitted the work is committed first, then a dirty target is refused (as before)', async () => {
    const job = await agentWithUncommittedWork();
    writeFileSync(join(sb.repo, 'README.md'), 'edited\n');
    const main = git(sb.repo, 'rev-parse', 'main');
    await assert.rejects(sb.coordinator().merge(job.id, { uncommitted: 'commit' }), (e: PaddockError) => e.code === 'TARGET_DIRTY');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main, 'main did not move');
    assert.equal(status(job.worktree!), '', 'the uncommitted work was committed');
    assert.equal(status(sb.repo), 'M README.md');
  });

  it('the branch tip is read after the commit of the uncommitted work: that commit is landed', async () => {
    const job = await agentWithUncommittedWork();
    const report = await sb.coordinator().merge(job.id, { uncommitted: 'commit' });
    assert.equal(report.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', job.branch!));
    assert.equal(git(sb.repo, 'show', 'main:u.txt'), 'u');
    assert.equal(report.job.landing?.branchHead, report.commit);
  });

  it('what was read about the target before the commit is read again after it (landing on its own branch)', async () => {
    const job = await agentWithUncommittedWork();
    writeFileSync(join(job.worktree!, 'x.txt'), 'changed\n');
    // Its own branch is checked out in its worktree, dirty before the commit, clean after: nothing to land, not dirty.
    await assert.rejects(sb.coordinator().merge(job.id, { into: job.branch!, uncommitted: 'commit' }), (e: PaddockError) => e.code === 'NOTHING_TO_LAND');
    assert.equal(status(job.worktree!), '');
    // Without the commit, the same target is dirty.
    writeFileSync(join(job.worktree!, 'x.txt'), 'changed again\n');
    await assert.rejects(sb.coordinator().merge(job.id, { into: job.branch!, uncommitted: 'commits-only' }), (e: PaddockError) => e.code === 'TARGET_DIRTY');
  });
});
