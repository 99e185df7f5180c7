/**
 * Retry runs the agent again, and Run Check its command, only in its own git worktree (bug 58). The repository here lies in a
 * superproject (a checkout inside another repository, as a submodule or a dotfiles home is), so its
 * worktrees do too: a worktree folder whose `.git` is gone is then, for git, a folder of the
 * superproject. Before the fix, a retry there ran the agent, whose `git commit` landed in the
 * superproject; a queued retry was launched there too, and a check ran there.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { CoordinatorSandbox, useCoordinatorSandbox, git } from '../coordinator/coordinatorFixture';

describe('Retry and Run Check: only in the agent\'s own git worktree', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** The sandbox's folder as a repository of its own with one commit; returns its HEAD. */
  function makeSuperproject(): string {
    writeFileSync(join(sb.root, '.gitignore'), 'home/\nrepo/\n');
    git(sb.root, 'init', '-q', '-b', 'main');
    git(sb.root, 'add', '.gitignore');
    git(sb.root, 'commit', '-qm', 'superproject');
    return git(sb.root, 'rev-parse', 'HEAD');
  }

  /** An agent that notes which repository git finds, then commits a file there. */
  const committingAgent = ['sh', '-c', 'git rev-parse --show-toplevel >> "$PADDOCK_REPO.where"; echo work > "work-$(date +%s%N).txt"; git add -A . && git commit -qm agent-work'];

  const wheres = (): string[] => (existsSync(`${sb.repo}.where`) ? readFileSync(`${sb.repo}.where`, 'utf8').trim().split('\n') : []);

  it('refuses, in one sentence and changing nothing, a worktree whose .git is gone or that is another repository now', async () => {
    const superHead = makeSuperproject();
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: committingAgent });
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.deepEqual(wheres(), [job.worktree], 'the first execution ran in its worktree');
    const worktree = job.worktree!;

    const refusal = (e: unknown, words: RegExp): boolean => {
      assert.ok(e instanceof PaddockError, String(e));
      assert.equal(e.kind, 'failed', 'an operation that failed: exit 1');
      assert.match(e.message, new RegExp(`^Agent ${job.id} cannot be retried: its worktree ${worktree} `));
      assert.match(e.message, words);
      assert.match(e.message, /nothing was changed\.$/);
      assert.doesNotMatch(e.message, /\n/);
      return true;
    };

    // The link cut (the agent's own `rm .git`, or a person's).
    rmSync(join(worktree, '.git'));
    await assert.rejects(c.retry(job.id), (e) => refusal(e, /is no longer a git worktree of .*its \.git is gone/));
    // Deleted and made again, empty.
    rmSync(worktree, { recursive: true, force: true });
    mkdirSync(worktree);
    await assert.rejects(c.retry(job.id), (e) => refusal(e, /its \.git is gone/));
    // A repository of its own made there.
    git(worktree, 'init', '-q');
    await assert.rejects(c.retry(job.id), (e) => refusal(e, /is a repository of its own now/));
    // Gone altogether.
    rmSync(worktree, { recursive: true, force: true });
    await assert.rejects(c.retry(job.id), (e) => refusal(e, /no longer exists/));

    // A record whose folder to run in is edited to the main worktree (the worktree itself sound again).
    git(sb.repo, 'worktree', 'prune');
    git(sb.repo, 'worktree', 'add', '-q', worktree, `paddock/${job.id}`);
    const recordFile = join(sb.store.jobDir(job.id), 'job.json');
    writeFileSync(recordFile, JSON.stringify({ ...JSON.parse(readFileSync(recordFile, 'utf8')), cwd: sb.repo }));
    await assert.rejects(c.retry(job.id), (e: unknown) => {
      assert.ok(e instanceof PaddockError && e.kind === 'failed', String(e));
      assert.equal(e.message, `Agent ${job.id} cannot be retried: its record names ${sb.repo} as the folder to run in, not its worktree ${worktree}; nothing was changed.`);
      return true;
    });

    const after = await sb.store.read(job.id);
    assert.equal(after.lifecycle.generation, 1, 'no retry began');
    assert.equal(after.lifecycle.state, 'completed');
    assert.deepEqual(wheres(), [worktree], 'the agent never ran again');
    assert.equal(git(sb.root, 'rev-parse', 'HEAD'), superHead, 'nothing was committed in the superproject');
  });

  it('a queued retry whose worktree lost its .git before its launch fails saying so, and its agent never runs', async () => {
    const superHead = makeSuperproject();
    const c = sb.coordinator({ maxConcurrent: 1 });
    const job = await c.start({ repo: sb.repo, command: committingAgent });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    const worktree = job.worktree!;
    const holder = await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    await sb.waitForState(holder.id, ['running']);

    const queued = await c.retry(job.id);
    assert.equal(queued.lifecycle.state, 'queued', 'the one slot is taken');
    assert.equal(queued.lifecycle.generation, 2);
    // While it waits, the folder is deleted and made again, empty.
    rmSync(worktree, { recursive: true, force: true });
    mkdirSync(worktree);
    await c.stop(holder.id, { force: true });
    // A one-shot Stop launches nothing (the CLI leaves the queue to a coordinator, bug 220): a pass stands in for one.
    await c.tick();

    const ended = await sb.waitEnded(job.id);
    assert.equal(ended.lifecycle.generation, 2);
    assert.equal(ended.lifecycle.state, 'failed');
    assert.match(ended.lifecycle.detail ?? '', /is no longer a git worktree of .*its \.git is gone/);
    assert.equal(ended.lifecycle.startedAt, null, 'the agent did not start');
    assert.deepEqual(wheres(), [worktree], 'the agent never ran in the superproject');
    assert.equal(git(sb.root, 'rev-parse', 'HEAD'), superHead, 'nothing was committed in the superproject');
    assert.ok(existsSync(worktree), 'the folder is left as it was');
  });

  it('Run Check refuses a worktree whose .git is gone, records that it did not run, and runs nothing', async () => {
    const superHead = makeSuperproject();
    const ran = join(sb.root, 'check-ran-in.txt');
    await sb.trustCheck(`git rev-parse --show-toplevel >> ${ran}; git commit -q --allow-empty -m check-was-here`);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    rmSync(join(job.worktree!, '.git'));
    const expected = `The check of agent ${job.id} cannot run: its worktree ${job.worktree} is no longer a git worktree of ${sb.repo} (its .git is gone); nothing was run.`;
    await assert.rejects(c.check(job.id), (e: unknown) => {
      assert.ok(e instanceof PaddockError && e.kind === 'failed', String(e));
      assert.equal(e.message, expected);
      return true;
    });
    assert.ok(!existsSync(ran), 'the check command never ran');
    assert.equal(git(sb.root, 'rev-parse', 'HEAD'), superHead, 'nothing was committed in the superproject');
    const check = (await sb.store.read(job.id)).check;
    assert.equal(check?.state, 'failed');
    assert.equal(check?.summary, expected, 'recorded as not run, so a leader does not try it on every pass');
  });
});
