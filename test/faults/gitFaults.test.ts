/**
 * Fault cases 16 and 19 through the real coordinator: cleanup of a worktree
 * with a leftover index.lock, a locked worktree and one with a submodule
 * completes with the evidence captured first; a stale index.lock in the main
 * repository and a concurrent git process committing in it during starts and
 * cleanups neither lose work nor leave anything unexplained.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Coordinator } from '../../src/core/coordinator';
import { JobRecord } from '../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox, git } from '../unit/core/coordinator/coordinatorFixture';

describe('faults: git in the way of cleanup and start (cases 16, 19)', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  let c: Coordinator;
  useCoordinatorSandbox((fresh) => {
    sb = fresh;
    c = sb.coordinator({ maxConcurrent: 8 });
  });

  /** An ended agent that committed, modified and left an untracked file. */
  async function agentWithWork(tag: string): Promise<JobRecord> {
    const job = await c.start({
      repo: sb.repo,
      command: ['sh', '-c', `echo ${tag} > committed.txt && git add committed.txt && git commit -q -m work && echo changed >> README.md && echo ${tag} > untracked.txt`],
    });
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    return done;
  }

  async function assertCleanedWithEvidence(job: JobRecord, tag: string): Promise<void> {
    const report = await c.cleanup(job.id);
    const cl = report.job.cleanup!;
    assert.equal(cl.phase, 'complete', `${cl.stage}: ${cl.lastError}`);
    assert.equal(git(sb.repo, 'show', `refs/paddock/snapshots/${job.id}:untracked.txt`), tag);
    assert.match(git(sb.repo, 'show', `refs/paddock/snapshots/${job.id}:README.md`), /changed/);
    assert.equal(git(sb.repo, 'show', `paddock/${job.id}:committed.txt`), tag, 'the unmerged branch is kept');
    assert.equal(existsSync(job.worktree!), false);
    const types = (await sb.store.readTimeline(job.id)).map((e) => e.type);
    assert.ok(types.indexOf('cleanup-captured') >= 0 && types.indexOf('cleanup-captured') < types.indexOf('cleanup-complete'));
  }

  it('a leftover index.lock in the worktree: evidence captured, cleanup complete', async () => {
    const job = await agentWithWork('lock');
    writeFileSync(git(job.worktree!, 'rev-parse', '--path-format=absolute', '--git-path', 'index.lock'), '');
    await assertCleanedWithEvidence(job, 'lock');
  });

  it('a locked worktree: evidence captured, cleanup complete', async () => {
    const job = await agentWithWork('locked');
    git(sb.repo, 'worktree', 'lock', '--reason', 'someone is busy', job.worktree!);
    await assertCleanedWithEvidence(job, 'locked');
  });

  it('a worktree holding a submodule: evidence captured, cleanup complete', async () => {
    const sub = join(sb.root, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q', '-b', 'main');
    writeFileSync(join(sub, 'lib.txt'), 'lib\n');
    git(sub, 'add', '.');
    git(sub, 'commit', '-q', '-m', 'lib');
    const job = await agentWithWork('sub');
    git(job.worktree!, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', sub, 'vendor/lib');
    await assertCleanedWithEvidence(job, 'sub');
    assert.ok(git(sb.repo, 'ls-tree', '-r', `refs/paddock/snapshots/${job.id}`).includes('vendor/lib'), 'the submodule is in the snapshot');
  });

  it('a stale index.lock in the main repository does not block a start or a cleanup', async () => {
    const lock = join(sb.repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    const job = await agentWithWork('mainlock');
    await assertCleanedWithEvidence(job, 'mainlock');
    assert.ok(existsSync(lock), 'and Paddock did not remove somebody else’s lock');
  });

  it('a git process committing in the main repository all along: every start and cleanup succeeds or says why; nothing lost', async () => {
    // A real concurrent writer: commits (index.lock, HEAD's ref lock) as fast as it can, and notes
    // outside the repository each commit git said it made.
    const committedLog = join(sb.root, 'writer-commits.log');
    const writer = spawn('sh', ['-c', `i=0; while :; do i=$((i+1)); echo $i > busy.txt; git add busy.txt 2>/dev/null && git commit -q -m "busy $i" 2>/dev/null && echo $i >> '${committedLog}'; done`], {
      cwd: sb.repo,
      env: sb.env,
      stdio: 'ignore',
      detached: true,
    });
    try {
      const jobs: { job: JobRecord; tag: string }[] = [];
      const problems: string[] = [];
      for (let i = 0; i < 4; i++) {
        try {
          jobs.push({ job: await agentWithWork(`busy${i}`), tag: `busy${i}` });
        } catch (err) {
          // A start that gives up must say so in one sentence and leave nothing behind.
          problems.push((err as Error).message);
          assert.match((err as Error).message, /lock|failed to start/i);
        }
      }
      assert.ok(jobs.length >= 2, `most starts succeed under contention: ${problems.join(' | ')}`);
      for (const { job, tag } of jobs) {
        const report = await c.cleanup(job.id);
        const cl = report.job.cleanup!;
        // Evidence is taken in any case; removal is complete or incomplete naming git's lock.
        assert.equal(git(sb.repo, 'show', `refs/paddock/snapshots/${job.id}:untracked.txt`), tag);
        if (cl.phase !== 'complete') assert.match(cl.lastError ?? '', /lock/i, `${cl.stage}: ${cl.lastError}`);
        assert.equal(git(sb.repo, 'show', `paddock/${job.id}:committed.txt`), tag, 'the branch is kept');
      }
    } finally {
      process.kill(-writer.pid!, 'SIGKILL');
    }
    // The writer's own commits are all there: Paddock took nothing from the main repository.
    const log = git(sb.repo, 'log', '--format=%s', 'main').split('\n');
    const busy = new Set(log.filter((s) => s.startsWith('busy ')).map((s) => Number(s.slice(5))));
    const made = readFileSync(committedLog, 'utf8').split('\n').filter(Boolean).map(Number);
    assert.ok(made.length > 0, 'the writer committed while Paddock worked');
    const missing = made.filter((n) => !busy.has(n));
    assert.deepEqual(missing, [], `the writer's commits ${missing.join(', ')} are gone from main`);
    // Killed between a commit and its note: at most that one commit is on main but not in the notes.
    assert.ok(busy.size - made.length <= 1, `${busy.size} busy commits on main, ${made.length} noted`);
    const fsck = git(sb.repo, 'fsck', '--no-progress', '--connectivity-only').split('\n').filter(Boolean);
    // The writer is SIGKILLed wherever it is: a commit it had written but not yet put on main (the one
    // in flight, numbered past everything on main) is left dangling by git itself. Anything else is not.
    const highest = Math.max(...busy);
    const described = fsck.map((l) => {
      const sha = /^dangling commit ([0-9a-f]{40})$/.exec(l)?.[1];
      return { line: l, subject: sha ? git(sb.repo, 'log', '-1', '--format=%s', sha) : '' };
    });
    // Killed after `git commit` wrote its tree and before the commit, the writer leaves that tree dangling instead.
    const inFlight = described.filter((d) => (/^busy \d+$/.test(d.subject) && Number(d.subject.slice(5)) > highest) || /^dangling tree [0-9a-f]{40}$/.test(d.line));
    assert.ok(inFlight.length <= 1, `more than the one commit in flight: ${inFlight.map((d) => d.line).join(', ')}`);
    assert.deepEqual(described.filter((d) => !inFlight.includes(d)).map((d) => `${d.line}: ${d.subject}`), []);
  });
});
