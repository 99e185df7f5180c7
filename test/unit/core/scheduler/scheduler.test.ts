/** The scheduler runs only in the lease holder, and is woken by store changes, not by a tick. */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobStore, type JobEntry } from '../../../../src/core/store';
import { CoordinatorSandbox, git, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { damageRecord } from '../store/helpers';

/** Far longer than any test here: nothing below can be explained by a periodic pass. */
const NO_TICK_MS = 600_000;

describe('scheduler: leader only, woken by store changes', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a job queued by another process is launched by the leader at once, and by no follower', async () => {
    const leader = sb.coordinator({ maxConcurrent: 1 }, { tickMs: NO_TICK_MS });
    await leader.ready;
    const follower = sb.coordinator({ maxConcurrent: 1 }, { tickMs: NO_TICK_MS });
    await follower.ready;
    assert.equal(leader.isLeader, true);
    assert.equal(follower.isLeader, false);

    // A CLI process (one-shot) cannot take the lease the leader holds, so its start stays queued for the leader.
    const cli = sb.coordinator({ maxConcurrent: 1 }, { tickMs: 0, watch: false });
    const long = await cli.start({ repo: sb.repo, title: 'for the leader', command: ['sleep', '30'] });
    assert.equal(long.lifecycle.state, 'queued');
    const started = Date.now();
    await sb.waitForState(long.id, ['running'], 10_000);
    assert.ok(Date.now() - started < 8000, `launched after ${Date.now() - started} ms`);

    // Capacity is full: the next one waits. Then the leader goes, and the follower's Stop frees the slot:
    // it does not lead (its lease attempt is far off), so it launches nothing. (A one-shot CLI process
    // whose Stop frees a slot with the lease free takes the lease: it leads, and launches; bug 170.)
    const next = await cli.start({ repo: sb.repo, title: 'for the next leader', command: ['true'] });
    assert.equal(next.lifecycle.state, 'queued');
    leader.dispose();
    await leader.whenIdle();
    await follower.stop(long.id);
    await sleep(1500);
    assert.equal((await sb.store.read(next.id)).lifecycle.state, 'queued', 'a process that does not lead launched it');
    assert.equal(follower.isLeader, false);
    await follower.tick(); // its next lease attempt, brought forward
    assert.equal(follower.isLeader, true);
    assert.equal((await sb.waitEnded(next.id, 10_000)).lifecycle.state, 'completed');
  });

  // Found by hand: a record damaged while its agent ran freed its slot, and the next queued agent
  // started past maxConcurrent; the listing did not say the agent still ran.
  it('an agent whose record becomes unreadable while its worker runs keeps its slot', async () => {
    const leader = sb.coordinator({ maxConcurrent: 1 }, { tickMs: NO_TICK_MS });
    await leader.ready;
    const running = await leader.start({ repo: sb.repo, title: 'damaged while running', command: ['sleep', '30'] });
    await sb.waitForState(running.id, ['running'], 10_000);
    const recordFile = join(sb.home, 'jobs', running.id, 'job.json');
    const intact = readFileSync(recordFile);
    await damageRecord(sb.home, running.id, '{garbage');

    const queued = await leader.start({ repo: sb.repo, title: 'must wait', command: ['true'] });
    assert.equal(queued.lifecycle.state, 'queued');
    await leader.tick();
    await sleep(1500);
    assert.equal((await sb.store.read(queued.id)).lifecycle.state, 'queued', 'started past maxConcurrent');
    const snapshot = await leader.snapshot();
    assert.equal(snapshot.capacity.used, 1);
    const damaged = snapshot.jobs.find((e) => e.id === running.id);
    assert.ok(damaged && !damaged.ok && /its worker is still running/.test(damaged.reason), JSON.stringify(damaged));

    // Mended by hand and stopped: the slot frees and the queued agent runs.
    writeFileSync(recordFile, intact);
    await leader.stop(running.id);
    assert.equal((await sb.waitEnded(queued.id, 10_000)).lifecycle.state, 'completed');
  });

  // Found by reading: the leader resumes an interrupted cleanup and retries a due incomplete one, but
  // while a person's operation held such a job's lock, each pass that found it taken asked for another
  // 50 ms later (the resumed one re-reading the whole store each time): a loop for as long as they held it.
  it('a leader waits without passing while someone else holds the lock of a cleanup it would resume or retry, and runs each once they let go', async () => {
    const runner = sb.coordinator();
    const started = await Promise.all(['interrupted', 'due'].map((title) => runner.start({ repo: sb.repo, title, command: ['sh', '-c', `echo ${title} > work.txt`] })));
    const [interrupted, due] = await Promise.all(started.map((j) => sb.waitEnded(j.id)));
    const now = new Date().toISOString();
    const cleanup = {
      remaining: ['worktree', 'branch'] as ('worktree' | 'branch')[], needsAttention: false, holders: [], deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: now, updatedAt: now,
    };
    await sb.store.update(interrupted.id, (j) => ({ ...j, cleanup: { ...cleanup, phase: 'capturing', stage: null, failures: 0, nextAttemptAt: null, lastError: null } }));
    const past = new Date(Date.now() - 60_000).toISOString();
    await sb.store.update(due.id, (j) => ({ ...j, cleanup: { ...cleanup, phase: 'incomplete', stage: 'capturing', failures: 1, nextAttemptAt: past, lastError: 'it failed once' } }));
    runner.dispose(); // it led to launch its agents
    await runner.whenIdle();
    const people = await Promise.all([interrupted.id, due.id].map((id) => sb.holdJobLockElsewhere(id)));

    let listings = 0;
    const counting = new (class extends JobStore {
      override list(): Promise<JobEntry[]> {
        listings++;
        return super.list();
      }
    })({ home: sb.home });
    const leader = sb.coordinator({}, { tickMs: NO_TICK_MS, store: counting });
    await leader.ready;
    assert.equal(leader.isLeader, true);
    await sleep(500); // its first passes have found both locks held
    // Every timer this process arms from now on, as a pass asks for the next one with a timer.
    const shortTimers: number[] = [];
    const realSetTimeout = global.setTimeout;
    const listedBefore = listings;
    global.setTimeout = ((fn: () => void, ms?: number) => {
      if ((ms ?? 0) < 1000) shortTimers.push(ms ?? 0);
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout;
    try {
      await sleep(3000);
    } finally {
      global.setTimeout = realSetTimeout;
    }
    assert.ok(listings - listedBefore <= 1, `the store was listed ${listings - listedBefore} times in 3 s while the locks were held and nothing changed`);
    assert.ok(shortTimers.length <= 2, `${shortTimers.length} timers under a second armed in 3 s of waiting: ${shortTimers.slice(0, 10).join(', ')}…`);
    for (const id of [interrupted.id, due.id]) assert.notEqual((await sb.store.read(id)).cleanup?.phase, 'complete', 'cleaned up under a held lock');

    await Promise.all(people.map((p) => p.kill()));
    for (const [job, word] of [[interrupted, 'interrupted'], [due, 'due']] as const) {
      const done = await sb.waitFor(job.id, (j) => j.cleanup?.phase === 'complete', 15_000);
      assert.equal(done.cleanup?.lastError, null);
      assert.equal(git(sb.repo, 'show', `refs/paddock/snapshots/${job.id}:work.txt`), word, 'captured before removal');
    }
  });
});
