/**
 * Fault case 24: the persisted `nextAttemptAt` of a failed cleanup is far in
 * the future (the clock jumped back after it was written) or far in the past
 * (the clock jumped forward). A real coordinator loop must neither stall (wait
 * for the year 2100) nor spin (retry on every tick).
 */
import * as assert from 'node:assert/strict';
import { MAX_DELAY_MS } from '../../src/core/coordinator/backoff';
import { JobRecord } from '../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox, sleep } from '../unit/core/coordinator/coordinatorFixture';

describe('faults: clock jumps against the cleanup backoff (case 24)', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** An ended agent whose cleanup failed once because a process holds its worktree. */
  async function incompleteCleanup(): Promise<{ job: JobRecord; holder: number }> {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(job.id);
    const holder = sb.spawnOwned('sleep', ['600'], job.worktree!);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup!.phase, 'incomplete');
    c.dispose();
    await c.whenIdle();
    return { job: report.job, holder };
  }

  /**
   * How far ahead these coordinators believe a persisted retry time (the real one is 1.1× the 60 s
   * cap). Shortened so the two far-future cases prove the clamp in seconds rather than twice
   * waiting out 66 s; the clamp's code is the same whatever the figure.
   */
  const TRUST_MS = 8_000;

  async function setNextAttempt(id: string, at: string): Promise<void> {
    await sb.store.update(id, (j) => ({ ...j, cleanup: { ...j.cleanup!, nextAttemptAt: at } }));
  }

  // Found a real bug (fixed): src/core/coordinator/backoff.ts dueTime() clamps a far-future nextAttemptAt to `now + MAX_DELAY_MS`
  // with the *current* now, so on every tick the attempt is again 66 s away and never becomes due: the
  // cleanup stalls until 2100 (seen: still incomplete with nextAttemptAt 2100-01-01 after 96 s, holder gone).
  // Fix: when Coordinator.scheduleCleanupRetries()/automaticCleanup() see nextAttemptAt > now + MAX_DELAY_MS,
  // persist nextAttemptAt = now + backoffDelayMs(failures) (clamp once, on disk), or clamp against the time
  // the schedule was written (cleanup.updatedAt + MAX_DELAY_MS) instead of against now.
  it('nextAttemptAt in the year 2100: the retry still comes within the capped delay', async () => {
    const { job, holder } = await incompleteCleanup();
    await setNextAttempt(job.id, '2100-01-01T00:00:00.000Z');
    process.kill(holder, 'SIGKILL');
    const started = Date.now();
    const c = sb.coordinator({}, { tickMs: 250, retryTrustMs: TRUST_MS });
    await c.ready;
    const done = await sb.waitFor(job.id, (j) => j.cleanup?.phase === 'complete', TRUST_MS + 30_000);
    assert.deepEqual(done.cleanup!.remaining, []);
    const waited = Date.now() - started;
    assert.ok(waited <= TRUST_MS + 10_000, `retried after ${waited} ms (cap ${TRUST_MS} ms)`);
  });

  it('nextAttemptAt in the year 2100 and a reload before the capped delay is over: the retry still comes within it', async () => {
    const { job, holder } = await incompleteCleanup();
    await setNextAttempt(job.id, '2100-01-01T00:00:00.000Z');
    process.kill(holder, 'SIGKILL');
    const started = Date.now();
    const first = sb.coordinator({}, { tickMs: 250, retryTrustMs: TRUST_MS });
    await first.ready;
    // The window reloads two thirds into the capped delay: its memory of when the attempt is due goes with it.
    await sleep((TRUST_MS * 2) / 3);
    assert.equal((await sb.store.read(job.id)).cleanup!.phase, 'incomplete', 'not due yet before the reload');
    first.dispose();
    await first.whenIdle();
    const second = sb.coordinator({}, { tickMs: 250, retryTrustMs: TRUST_MS });
    await second.ready;
    const done = await sb.waitFor(job.id, (j) => j.cleanup?.phase === 'complete', TRUST_MS + 30_000);
    assert.deepEqual(done.cleanup!.remaining, []);
    const waited = Date.now() - started;
    // Within the cap of when the far-future time was first seen (plus an attempt's time), not a fresh cap after the reload.
    assert.ok(waited <= TRUST_MS + 10_000, `retried ${waited} ms after the far-future time was first seen (cap ${TRUST_MS} ms)`);
  });

  it('nextAttemptAt in 1970 with the holder still there: no repeated attempt, a fresh future schedule, no spinning', async () => {
    const { job } = await incompleteCleanup();
    const before = (await sb.store.read(job.id)).cleanup!;
    await setNextAttempt(job.id, '1970-01-01T00:00:00.000Z');
    const entriesBefore = (await sb.store.readTimeline(job.id)).length;
    const c = sb.coordinator({}, { tickMs: 50 });
    await c.ready;
    await sleep(4000); // 80 ticks
    const after = (await sb.store.read(job.id)).cleanup!;
    assert.equal(after.phase, 'incomplete');
    assert.equal(after.failures, before.failures, 'no attempt failed again');
    const next = Date.parse(after.nextAttemptAt!);
    assert.ok(next > Date.now() - 1000 && next <= Date.now() + MAX_DELAY_MS, `rescheduled sensibly: ${after.nextAttemptAt}`);
    // Due at once, but the holder (the fingerprint) is unchanged: the loop reschedules without
    // repeating an attempt that would fail the same way (the earlier entries are the manual cleanup's).
    const requested = (await sb.store.readTimeline(job.id)).slice(entriesBefore).filter((e) => e.type === 'cleanup-requested').length;
    assert.equal(requested, 0, 'no attempt while nothing it looked at changed');
  });
});
