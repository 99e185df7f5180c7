/**
 * Fault case 5: the process driving Paddock (the CLI here; the extension host
 * runs the same coordinator) is SIGKILLed in the middle of `start` and in the
 * middle of `cleanup`, at many points. A coordinator started afterwards (a
 * reload) must find every job in a consistent phase and finish or undo it: no
 * job stuck in starting, no worktree or branch that no record names, the
 * agents' work intact, and interrupted cleanups completed with evidence first.
 * The assertions hold for any kill point, so the timing cannot make it flaky.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTerminalState, JobRecord } from '../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox, git, sleep } from '../unit/core/coordinator/coordinatorFixture';
import { CLI } from './faultKit';

/** The parts of a raw record the kill points look at. */
type RawRecord = { worktree?: string | null; lifecycle?: { state?: string }; launch?: unknown; execution?: unknown } | null;

/** Raw look at the newest record in the store (no locks, no reconcile: it must not disturb the run). */
function peekNewest(home: string, known: Set<string>): { id: string; raw: RawRecord } | null {
  const dir = join(home, 'jobs');
  if (!existsSync(dir)) return null;
  const id = readdirSync(dir).find((n) => !known.has(n));
  if (!id) return null;
  try {
    return { id, raw: JSON.parse(readFileSync(join(dir, id, 'job.json'), 'utf8')) };
  } catch {
    return { id, raw: null };
  }
}

/** Runs the CLI and SIGKILLs it the moment `when` sees its progress in the store (or lets it finish). */
function killedWhen(args: string[], env: NodeJS.ProcessEnv, when: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: 'ignore' });
    const poll = setInterval(() => {
      if (when()) {
        child.kill('SIGKILL');
        clearInterval(poll);
      }
    }, 2);
    child.on('exit', () => {
      clearInterval(poll);
      resolve();
    });
  });
}

/** Runs the CLI and SIGKILLs it after `ms` (if it is still running then). */
function killedAfter(args: string[], env: NodeJS.ProcessEnv, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('faults: CLI SIGKILLed mid-start and mid-cleanup (case 5)', function () {
  this.timeout(300_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  function okJobs(entries: Awaited<ReturnType<typeof sb.store.list>>, allowInterruptedCreate = false): JobRecord[] {
    for (const e of entries) {
      // Killed between claiming the id (mkdir) and writing the record: listed as unreadable with that reason.
      if (allowInterruptedCreate && !e.ok && /creation was interrupted/.test(e.reason)) continue;
      assert.ok(e.ok, `record ${e.id} unreadable: ${e.ok ? '' : e.reason}`);
    }
    return entries.flatMap((e) => (e.ok ? [e.job] : []));
  }

  it('mid-start: after a restart no job is stuck, and every worktree and branch belongs to a record', async () => {
    // Kill points, in the order a start passes them (seen by watching the store and the repository).
    const points: [string, (raw: RawRecord) => boolean][] = [
      ['id claimed', () => true],
      ['record written', (raw) => raw !== null],
      ['worktree assigned', (raw) => raw?.worktree != null],
      ['starting', (raw) => raw?.lifecycle?.state === 'starting'],
      ['worktree folder made', (raw) => raw?.worktree != null && existsSync(raw.worktree)],
      ['worktree checked out', (raw) => raw?.worktree != null && existsSync(join(raw.worktree, 'README.md'))],
      ['launch recorded', (raw) => raw?.launch != null],
      ['worker claimed', (raw) => raw?.execution != null],
    ];
    const reached: string[] = [];
    for (const [name, at] of points) {
      for (let round = 0; round < 2; round++) {
        const known = new Set(existsSync(join(sb.home, 'jobs')) ? readdirSync(join(sb.home, 'jobs')) : []);
        let hit = false;
        await killedWhen(['start', '--repo', sb.repo, '--', 'sh', '-c', 'echo work > out.txt; sleep 1'], sb.env, () => {
          const seen = peekNewest(sb.home, known);
          hit = seen !== null && at(seen.raw);
          return hit;
        });
        if (hit) reached.push(name);
      }
    }
    assert.ok(reached.length >= 6, `the kills landed mid-start (${reached.join(', ')})`);
    // The restart: a coordinator with its loop, as a new window would run.
    const c = sb.coordinator({ maxConcurrent: 4 }, { tickMs: 100 });
    await c.ready;
    const deadline = Date.now() + 120_000;
    let jobs: JobRecord[] = [];
    for (;;) {
      jobs = okJobs(await sb.store.list(), true);
      if (jobs.every((j) => isTerminalState(j.lifecycle.state))) break;
      if (Date.now() > deadline) assert.fail(`jobs did not settle: ${jobs.map((j) => `${j.id}:${j.lifecycle.state}`).join(' ')}`);
      await sleep(200);
    }
    c.dispose();
    await c.whenIdle();

    const recordedWorktrees = new Set(jobs.map((j) => j.worktree).filter((w): w is string => w !== null));
    const recordedBranches = new Set(jobs.map((j) => j.branch).filter((b): b is string => b !== null));
    for (const wt of sb.worktrees().filter((w) => w !== sb.repo)) assert.ok(recordedWorktrees.has(wt), `worktree ${wt} is named by no record`);
    const folder = `${sb.repo}.worktrees`;
    if (existsSync(folder)) {
      for (const name of readdirSync(folder)) assert.ok(recordedWorktrees.has(join(folder, name)), `folder ${name} is named by no record`);
    }
    for (const b of sb.branches().filter((b) => b !== 'main')) assert.ok(recordedBranches.has(b), `branch ${b} is named by no record`);
    for (const j of jobs) {
      if (j.lifecycle.state === 'completed') {
        assert.equal(readFileSync(join(j.worktree!, 'out.txt'), 'utf8'), 'work\n', `${j.id}'s work is intact`);
      } else {
        assert.match(j.lifecycle.state, /failed|cancelled/, `${j.id} ended ${j.lifecycle.state}: ${j.lifecycle.detail}`);
      }
    }
    // Consistent means a person can finish every one of them: each cleans up completely, evidence first.
    const after = sb.coordinator();
    for (const j of jobs) {
      const report = await after.cleanup(j.id);
      assert.equal(report.job.cleanup!.phase, 'complete', `${j.id} (${j.lifecycle.state}): ${report.job.cleanup!.stage}: ${report.job.cleanup!.lastError}`);
      if (j.lifecycle.state === 'completed') assert.equal(git(sb.repo, 'show', `refs/paddock/snapshots/${j.id}:out.txt`), 'work');
    }
    assert.deepEqual(sb.worktrees(), [sb.repo]);
    assert.deepEqual(sb.branches(), ['main'], 'no branch had commits of its own, so none is left');
    console.log(`      killed at: ${reached.join(', ')}; ${jobs.length} jobs: ${[...new Set(jobs.map((j) => j.lifecycle.state))].map((s) => `${jobs.filter((j) => j.lifecycle.state === s).length} ${s}`).join(', ')}`);
  });

  it('mid-cleanup: after a restart every interrupted cleanup completes, evidence first, the unmerged branch kept', async () => {
    const c0 = sb.coordinator({ maxConcurrent: 8 });
    const jobs: JobRecord[] = [];
    for (let i = 0; i < 6; i++) {
      const job = await c0.start({
        repo: sb.repo,
        command: ['sh', '-c', `echo ${i} > committed.txt && git add committed.txt && git commit -q -m work && echo u${i} > untracked.txt`],
      });
      jobs.push(await sb.waitEnded(job.id));
    }
    c0.dispose();
    await c0.whenIdle();
    for (const j of jobs) assert.equal(j.lifecycle.state, 'completed', j.lifecycle.detail ?? '');

    const delays = [200, 450, 700, 950, 1200, 1600];
    await Promise.all(jobs.map((j, i) => killedAfter(['cleanup', j.id, '--yes'], sb.env, delays[i])));

    const c = sb.coordinator({ maxConcurrent: 8 }, { tickMs: 100 });
    await c.ready;
    for (const j of jobs) {
      const now = await sb.store.read(j.id);
      // Killed before it wrote anything: nothing to resume, so the person asks again.
      if (now.cleanup === null) await c.cleanup(j.id);
      const done = await sb.waitFor(j.id, (r) => r.cleanup?.phase === 'complete', 60_000);
      assert.deepEqual(done.cleanup!.remaining, []);
      assert.equal(done.evidence?.snapshotRef, `refs/paddock/snapshots/${j.id}`);
      assert.equal(git(sb.repo, 'show', `refs/paddock/snapshots/${j.id}:untracked.txt`), `u${jobs.indexOf(j)}`);
      assert.ok(sb.branches().includes(`paddock/${j.id}`), 'the branch with an unmerged commit is kept');
      assert.equal(git(sb.repo, 'show', `paddock/${j.id}:committed.txt`), String(jobs.indexOf(j)));
      assert.equal(existsSync(j.worktree!), false);
      const types = (await sb.store.readTimeline(j.id)).map((e) => e.type);
      assert.ok(types.lastIndexOf('cleanup-captured') < types.lastIndexOf('cleanup-complete'));
    }
    assert.deepEqual(sb.worktrees(), [sb.repo]);
  });
});
