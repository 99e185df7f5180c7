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
import { LandingConflict } from '../../../../src/core/git/landingConflict';
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

  /** An ended agent whose one commit changes README.md, and main moved on README.md too: a conflicting true merge. */
  async function agentThatConflicts(): Promise<JobRecord> {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'agent\\n' > README.md && git commit -qam 'agent readme'"], title: 'conflict' });
    const ended = await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'README.md'), 'main\n');
    git(sb.repo, 'commit', '-qam', 'main readme');
    return ended;
  }

  it('a true merge made ahead of the checks: a dirty target is still refused first, a conflict after, and main never moves', async () => {
    const job = await agentThatConflicts();
    const main = git(sb.repo, 'rev-parse', 'main');
    writeFileSync(join(sb.repo, 'other.txt'), 'untracked is fine\n');
    git(sb.repo, 'add', 'other.txt');
    await assert.rejects(sb.coordinator().merge(job.id), (e: PaddockError) => e.code === 'TARGET_DIRTY');
    git(sb.repo, 'rm', '-q', '--cached', 'other.txt');
    await assert.rejects(sb.coordinator().merge(job.id), (e: unknown) => e instanceof LandingConflict && e.files.join() === 'README.md');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
    assert.equal(status(sb.repo), '?? other.txt');
  });

  it('a true merge made ahead of the checks lands with both parents and its message', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'y\\n' > y.txt && git add -A && git commit -qm 'agent y'"], title: 'true merge' });
    await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'z.txt'), 'main moves\n');
    git(sb.repo, 'add', 'z.txt');
    git(sb.repo, 'commit', '-qm', 'main z');
    const old = git(sb.repo, 'rev-parse', 'main');
    const report = await c.merge(job.id, { message: 'Land y' });
    assert.equal(report.kind, 'merge');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), report.commit);
    assert.equal(git(sb.repo, 'rev-list', '--parents', '-n1', 'main'), `${report.commit} ${old} ${git(sb.repo, 'rev-parse', job.branch!)}`);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), 'Land y');
    assert.equal(status(sb.repo), '');
  });
});
