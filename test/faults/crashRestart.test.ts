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
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTerminalState, JobRecord, POLICY_FILE } from '../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox, git, sleep } from '../unit/core/coordinator/coordinatorFixture';
import { CLI } from './faultKit';

/** How many starts or cleanups a kill point may take before the test gives up on hitting it. */
const ATTEMPTS_PER_POINT = 6;

/** The parts of a raw record the kill points look at. */
type RawRecord = { worktree?: string | null; lifecycle?: { state?: string }; launch?: unknown; cleanup?: { phase?: string } | null } | null;

/** What a kill point sees: the raw record and the types in the timeline so far. */
interface Seen {
  raw: RawRecord;
  events: string[];
}

/** Raw look at one job (no locks, no reconcile: it must not disturb the run). */
function peek(home: string, id: string): Seen {
  const dir = join(home, 'jobs', id);
  let raw: RawRecord = null;
  try {
    raw = JSON.parse(readFileSync(join(dir, 'job.json'), 'utf8'));
  } catch {
    // not written yet
  }
  let events: string[] = [];
  try {
    events = readFileSync(join(dir, 'timeline.jsonl'), 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          return [(JSON.parse(line) as { type: string }).type];
        } catch {
          return [];
        }
      });
  } catch {
    // no timeline yet
  }
  return { raw, events };
}

/** The runs that ended before their kill point, for the suite's report line; nothing when none did. */
function endedFirst(misses: readonly string[]): string {
  return misses.length > 0 ? `; ended before their point:\n${misses.join('\n')}` : '';
}

/** The id of the job folder that is not in `known` (the one being started), if any yet. */
function newestId(home: string, known: Set<string>): string | undefined {
  const dir = join(home, 'jobs');
  return existsSync(dir) ? readdirSync(dir).find((n) => !known.has(n)) : undefined;
}

/** How a run under a kill point ended: killed by us, or (a miss) how it exited and what the store showed then. */
type KillOutcome = { killed: true } | { killed: false; exit: string };

/**
 * Runs the CLI and SIGKILLs it the moment `at` sees its progress in the store (`watched`: the job's
 * state, once it has a folder). A miss (the CLI ended first) says how it exited and what was seen then.
 */
function killedWhen(args: string[], env: NodeJS.ProcessEnv, watched: () => Seen | undefined, at: (seen: Seen) => boolean): Promise<KillOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: 'ignore' });
    const poll = setInterval(() => {
      const seen = watched();
      if (seen && at(seen)) {
        child.kill('SIGKILL');
        clearInterval(poll);
      }
    }, 1);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      if (signal === 'SIGKILL') return resolve({ killed: true });
      const seen = watched();
      const record = seen?.raw ? `its agent ${seen.raw.lifecycle?.state}, cleanup ${seen.raw.cleanup?.phase ?? 'none'}` : 'no record';
      resolve({ killed: false, exit: `exit ${code ?? signal}, ${record}; timeline ${seen?.events.join(' ') || 'empty'}` });
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
    // The timeline keeps what happened, so a step stays visible until the CLI has moved past it.
    const points: [string, (seen: Seen) => boolean][] = [
      ['id claimed', () => true],
      ['record written', (s) => s.raw !== null],
      ['worktree assigned', (s) => s.raw?.worktree != null],
      ['starting', (s) => s.raw?.lifecycle?.state === 'starting'],
      ['worktree folder made', (s) => s.raw?.worktree != null && existsSync(s.raw.worktree)],
      ['worktree checked out', (s) => s.raw?.worktree != null && existsSync(join(s.raw.worktree, 'README.md'))],
      // `launch` is cleared when the worker claims: this point is the worker's boot.
      ['launch recorded', (s) => s.raw?.launch != null],
      ['worker claimed', (s) => s.events.includes('claimed')],
    ];
    // A start killed after it took a slot holds that slot until a coordinator loop (the restart)
    // fails it; with the default four slots the later starts would only queue and never reach
    // the later points.
    writeFileSync(join(sb.home, POLICY_FILE), JSON.stringify({ maxConcurrent: 64 }), { mode: 0o600 });
    const reached: string[] = [];
    const misses: string[] = [];
    for (const [name, at] of points) {
      // Twice per point; a start that outran the watcher is tried again, up to a limit.
      let hits = 0;
      for (let attempt = 0; attempt < ATTEMPTS_PER_POINT && hits < 2; attempt++) {
        const known = new Set(existsSync(join(sb.home, 'jobs')) ? readdirSync(join(sb.home, 'jobs')) : []);
        const outcome = await killedWhen(
          ['start', '--repo', sb.repo, '--', 'sh', '-c', 'echo work > out.txt; sleep 1'],
          sb.env,
          () => {
            const id = newestId(sb.home, known);
            return id === undefined ? undefined : peek(sb.home, id);
          },
          at,
        );
        if (outcome.killed) hits++;
        else misses.push(`${name} #${attempt + 1}: ${outcome.exit}`);
      }
      if (hits > 0) reached.push(name);
    }
    assert.deepEqual(reached, points.map(([name]) => name), `a kill landed at every point of a start; the starts that ended first:\n${misses.join('\n')}`);
    // The restart: a coordinator with its loop, as a new window would run.
    const c = sb.coordinator({ maxConcurrent: 4 }, { tickMs: 100 });
    await c.ready;
    // Everything settles within the restart's first passes: a start that died before it assigned a
    // worktree leaves its job's lock to a dead owner, free at once (it waited out a 60 s grace before).
    const deadline = Date.now() + 30_000;
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
    console.log(`      killed at: ${reached.join(', ')}; ${jobs.length} jobs: ${[...new Set(jobs.map((j) => j.lifecycle.state))].map((s) => `${jobs.filter((j) => j.lifecycle.state === s).length} ${s}`).join(', ')}${endedFirst(misses)}`);
  });

  /** An agent that commits `i` and leaves `u<i>` untracked: work a cleanup must keep. */
  const commandFor = (i: number) => `echo ${i} > committed.txt && git add committed.txt && git commit -q -m work && echo u${i} > untracked.txt`;

  it('mid-cleanup: after a restart every interrupted cleanup completes, evidence first, the unmerged branch kept', async () => {
    const c0 = sb.coordinator({ maxConcurrent: 8 });
    const jobs: JobRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const job = await c0.start({ repo: sb.repo, title: `job ${i}`, command: ['sh', '-c', commandFor(i)] });
      jobs.push(await sb.waitEnded(job.id));
    }
    c0.dispose();
    await c0.whenIdle();
    for (const j of jobs) assert.equal(j.lifecycle.state, 'completed', j.lifecycle.detail ?? '');

    // Kill points, in the order a cleanup passes them; the last one is after the evidence was
    // captured and before the removal finished, the one that must never lose work.
    const capturedNotComplete = (s: Seen) => s.events.includes('cleanup-captured') && !s.events.includes('cleanup-complete');
    const points: [string, (seen: Seen) => boolean][] = [
      ['cleanup recorded', (s) => s.raw?.cleanup != null],
      ['terminating', (s) => s.raw?.cleanup?.phase === 'terminating'],
      ['capturing', (s) => s.raw?.cleanup?.phase === 'capturing'],
      ['captured', capturedNotComplete],
      ['removing', (s) => s.raw?.cleanup?.phase === 'removing'],
    ];
    const reached: string[] = [];
    const misses: string[] = [];
    const interrupted: JobRecord[] = [];
    let betweenCaptureAndRemoval = 0;
    let made = 5;
    const nextJob = async (): Promise<JobRecord> => {
      const spare = jobs.shift();
      if (spare) return spare;
      const c1 = sb.coordinator({ maxConcurrent: 8 });
      const job = await c1.start({ repo: sb.repo, command: ['sh', '-c', commandFor(made++)] });
      const ended = await sb.waitEnded(job.id);
      c1.dispose();
      await c1.whenIdle();
      return ended;
    };
    for (const [name, at] of points) {
      for (let attempt = 0; attempt < ATTEMPTS_PER_POINT; attempt++) {
        const j = await nextJob();
        interrupted.push(j);
        const outcome = await killedWhen(['cleanup', j.id, '--yes'], sb.env, () => peek(sb.home, j.id), at);
        if (!outcome.killed) {
          misses.push(`${name} #${attempt + 1}: ${outcome.exit}`);
          continue;
        }
        if (capturedNotComplete(peek(sb.home, j.id))) betweenCaptureAndRemoval++;
        reached.push(name);
        break;
      }
    }
    assert.deepEqual(reached, points.map(([name]) => name), `a kill landed at every point of a cleanup; the cleanups that ended first:\n${misses.join('\n')}`);
    interrupted.push(...jobs.splice(0)); // spares never asked: cleaned up below like the rest
    assert.ok(betweenCaptureAndRemoval >= 1, 'at least one cleanup was killed after the capture and before the removal finished');

    const c = sb.coordinator({ maxConcurrent: 8 }, { tickMs: 100 });
    await c.ready;
    for (const j of interrupted) {
      const n = j.title.match(/job (\d+)/)![1];
      const now = await sb.store.read(j.id);
      // Killed before it wrote anything: nothing to resume, so the person asks again.
      if (now.cleanup === null) await c.cleanup(j.id);
      const done = await sb.waitFor(j.id, (r) => r.cleanup?.phase === 'complete', 60_000);
      assert.deepEqual(done.cleanup!.remaining, []);
      assert.equal(done.evidence?.snapshotRef, `refs/paddock/snapshots/${j.id}`);
      assert.equal(git(sb.repo, 'show', `refs/paddock/snapshots/${j.id}:untracked.txt`), `u${n}`);
      assert.ok(sb.branches().includes(`paddock/${j.id}`), 'the branch with an unmerged commit is kept');
      assert.equal(git(sb.repo, 'show', `paddock/${j.id}:committed.txt`), n);
      assert.equal(existsSync(j.worktree!), false);
      const types = (await sb.store.readTimeline(j.id)).map((e) => e.type);
      const captured = types.lastIndexOf('cleanup-captured');
      assert.ok(captured >= 0, `${j.id}: no evidence was captured: ${types.join(',')}`);
      assert.ok(captured < types.lastIndexOf('cleanup-complete'), `${j.id}: removal finished before the capture: ${types.join(',')}`);
    }
    console.log(`      killed at: ${reached.join(', ')} (${interrupted.length} cleanups run)${endedFirst(misses)}`);
    assert.deepEqual(sb.worktrees(), [sb.repo]);
  });
});
