/**
 * The teardown command as cleanup runs it, with real shells and real
 * background processes: its result is its exit (a background process that
 * holds its output open does not hold the cleanup), what it left running is
 * ended, and a timeout ends the whole tree — a process that ignores SIGTERM
 * and left the session too — before the run returns.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findByEnvMarker, terminateProcessTree } from '../../../../src/core/proc';
import { runTeardown, teardownFailure, type TeardownOptions } from '../../../../src/core/coordinator/teardown';

describe('teardown: its exit is its result; everything it started is ended', function () {
  this.timeout(30_000);
  let dir = '';
  const jobId = `td${process.pid}${Date.now().toString(36)}`;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-teardown-'));
  });
  afterEach(async () => {
    // Whatever a failing test left behind carries the marker.
    for (const p of findByEnvMarker('PADDOCK_JOB_ID', jobId)) await terminateProcessTree({ sid: p.sid, marker: { name: 'PADDOCK_JOB_ID', value: jobId }, graceMs: 100 }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  function run(command: string, more: Partial<TeardownOptions> = {}) {
    return runTeardown({ command, cwd: dir, jobId, env: { PATH: process.env.PATH, PADDOCK_JOB_ID: jobId }, timeoutMs: 20_000, graceMs: 500, ...more });
  }

  it('returns at the exit of a teardown that leaves an escaped process holding its output, and ends that process', async () => {
    const started = Date.now();
    const outcome = await run('echo TD; setsid sleep 100000 & exit 0');
    const took = Date.now() - started;
    assert.equal(outcome.code, 0);
    assert.equal(outcome.timedOut, false);
    assert.equal(outcome.tail, 'TD');
    assert.ok(took < 5000, `returned after ${took} ms`);
    assert.equal(outcome.leftoversEnded, 1);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', jobId), [], 'nothing of the teardown is left');
  });

  it('does not wait for a background process of its own session either', async () => {
    const started = Date.now();
    const outcome = await run('sleep 20 & echo done');
    assert.ok(Date.now() - started < 5000, `returned after ${Date.now() - started} ms`);
    assert.equal(outcome.code, 0);
    assert.equal(outcome.tail, 'done');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', jobId), []);
  });

  it('an abort (the cleanup\'s command was interrupted) ends the whole tree at once and says so', async () => {
    const abort = new AbortController();
    const running = run(`setsid sh -c "trap '' TERM; sleep 100003" & echo WAITING; sleep 100004`, { abort: abort.signal, graceMs: 300 });
    await new Promise((r) => setTimeout(r, 300));
    const at = Date.now();
    abort.abort();
    const outcome = await running;
    assert.ok(Date.now() - at < 5000, `returned ${Date.now() - at} ms after the abort`);
    assert.equal(outcome.aborted, true);
    assert.equal(outcome.timedOut, false);
    assert.match(teardownFailure(outcome), /^teardown interrupted and ended, with everything it started: WAITING$/);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', jobId), [], 'nothing of the teardown survived the abort');
    // Aborted before it began: it ends at once.
    const late = await run('echo never-waited; sleep 100005', { abort: abort.signal });
    assert.equal(late.aborted, true);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', jobId), []);
  });

  it('a timeout ends the whole tree, SIGTERM-deaf escapees included, and returns', async () => {
    const started = Date.now();
    const outcome = await run(`setsid sh -c "trap '' TERM; sleep 100001" & trap '' TERM; echo WAITING; sleep 100002`, { timeoutMs: 800, graceMs: 500 });
    assert.equal(outcome.timedOut, true);
    assert.match(outcome.tail, /WAITING/);
    assert.ok(Date.now() - started < 8000, `returned after ${Date.now() - started} ms`);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', jobId), [], 'nothing of the teardown survived its timeout');
  });
});
