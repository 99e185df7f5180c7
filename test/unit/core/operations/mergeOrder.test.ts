/**
 * Merge asks its read-only questions at once; these pin what must not move
 * with that: refusals come in their old order and change nothing, a commit of
 * the agent's uncommitted work still comes before the target is checked (and
 * before its tip is read: the commit is landed), and what was read about the
 * branches before that commit is read again after it.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { LandingConflict } from '../../../../src/core/git/landingConflict';
import { UNCOMMITTED_CHOICE_CODE } from '../../../../src/core/operations/landingPrep';
import type { Coordinator } from '../../../../src/core/coordinator';
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

  // Its own branch was the one target whose worktree the commit of the agent's work changes (dirty
  // before, clean after: read again, it said "nothing to land"). Bug 61: it is refused as bad usage
  // first, before the commit, whatever the choices.
  it("landing on its own branch is refused before the agent's work is committed, and changes nothing", async () => {
    const job = await agentWithUncommittedWork();
    writeFileSync(join(job.worktree!, 'x.txt'), 'changed\n');
    const tip = git(sb.repo, 'rev-parse', job.branch!);
    for (const uncommitted of ['commit', 'commits-only'] as const) {
      await assert.rejects(sb.coordinator().merge(job.id, { into: job.branch!, uncommitted }), (e: PaddockError) => e.kind === 'usage' && /cannot be landed on its own branch/.test(e.message));
    }
    assert.equal(git(sb.repo, 'rev-parse', job.branch!), tip, 'nothing committed');
    assert.equal(status(job.worktree!), 'M x.txt\n?? u.txt');
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

  /** An ended agent with one commit (y.txt), started from `base`, and `base` moved on since (a true merge). */
  async function agentBehind(c: Coordinator, base: string): Promise<JobRecord> {
    const job = await c.start({ repo: sb.repo, base, command: ['sh', '-c', "printf 'y\n' > y.txt && git add -A && git commit -qm 'agent y'"], title: 'true merge' });
    const ended = await sb.waitEnded(job.id);
    const tip = git(sb.repo, 'rev-parse', base);
    const moved = git(sb.repo, '-c', 'user.name=T', '-c', 'user.email=t@t', 'commit-tree', `${tip}^{tree}`, '-p', tip, '-m', `${base} moves`);
    git(sb.repo, 'update-ref', `refs/heads/${base}`, moved);
    return ended;
  }

  it('the main worktree is read first as the likely target: a target checked out elsewhere is judged by its own worktree, either way', async () => {
    git(sb.repo, 'branch', 'side');
    const elsewhere = join(sb.root, 'side-worktree');
    git(sb.repo, 'worktree', 'add', '-q', elsewhere, 'side');
    git(elsewhere, 'reset', '-q', '--hard', 'side');
    const c = sb.coordinator();
    // The main worktree is dirty, the target's own worktree clean: it lands.
    const first = await agentBehind(c, 'side');
    git(elsewhere, 'reset', '-q', '--hard', 'side');
    writeFileSync(join(sb.repo, 'README.md'), 'dirty in the main worktree\n');
    const landed = await c.merge(first.id, { into: 'side', message: 'Land into side' });
    assert.equal(landed.kind, 'merge');
    assert.equal(git(sb.repo, 'rev-parse', 'side'), landed.commit);
    assert.equal(git(elsewhere, 'rev-parse', 'HEAD'), landed.commit, 'moved in the worktree it is checked out in');
    assert.equal(readFileSync(join(elsewhere, 'y.txt'), 'utf8'), 'y\n');
    assert.equal(status(sb.repo), 'M README.md', 'the main worktree untouched');
    git(sb.repo, 'checkout', '-q', '--', 'README.md');

    // The main worktree is clean, the target's own worktree dirty: refused, nothing moves.
    const second = await agentBehind(c, 'side');
    git(elsewhere, 'reset', '-q', '--hard', 'side');
    const side = git(sb.repo, 'rev-parse', 'side');
    writeFileSync(join(elsewhere, 'y.txt'), 'the person edits\n');
    await assert.rejects(c.merge(second.id, { into: 'side' }), (e: PaddockError) => e.code === 'TARGET_DIRTY' && e.message.includes(elsewhere));
    assert.equal(git(sb.repo, 'rev-parse', 'side'), side, 'side did not move');
    assert.equal(readFileSync(join(elsewhere, 'y.txt'), 'utf8'), 'the person edits\n');
  });

  it('a true merge whose move would overwrite an untracked or ignored file in the target is refused, looked at beside the other reads', async () => {
    const c = sb.coordinator();
    const job = await agentBehind(c, 'main');
    git(sb.repo, 'reset', '-q', '--hard', 'main');
    const main = git(sb.repo, 'rev-parse', 'main');
    writeFileSync(join(sb.repo, '.git', 'info', 'exclude'), 'y.txt\n');
    writeFileSync(join(sb.repo, 'y.txt'), 'the person\'s ignored file\n');
    await assert.rejects(c.merge(job.id), (e: PaddockError) => e.code === 'UNTRACKED_IN_THE_WAY' && /y\.txt/.test(e.message));
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main, 'main did not move');
    assert.equal(readFileSync(join(sb.repo, 'y.txt'), 'utf8'), "the person's ignored file\n");
  });
});
