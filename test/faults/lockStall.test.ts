/**
 * Fault case 6 with a real worker process: its event loop is frozen (SIGSTOP)
 * past the execution lock's stale time, then thawed. Meanwhile another
 * process sees the lock go stale. The compromised owner must not crash and
 * must not write under its lost claim; the job must end completed.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox, sleep } from '../unit/core/worker/fixtures';
import { isAlive } from './faultKit';
import { socketPathFor } from '../../src/core/protocol/runtimeDir';

describe('faults: owner frozen past the lock stale time (case 6)', function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let stopped: number | undefined;

  afterEach(() => {
    if (stopped) {
      try {
        process.kill(stopped, 'SIGCONT');
      } catch {
        // gone
      }
    }
    stopped = undefined;
    sb?.dispose();
  });

  it('a worker frozen for 15 s: no crash, no write under the lost claim, the job ends completed', async () => {
    sb = new Sandbox();
    const job = await sb.start(['sh', '-c', 'sleep 20; echo finished; exit 0'], { waitFor: ['running'] });
    const rec = await sb.store.read(job.id);
    const workerPid = rec.execution!.pid;
    const ownerToken = rec.execution!.ownerToken;
    process.kill(workerPid, 'SIGSTOP');
    stopped = workerPid;
    await sleep(15_000);
    // While frozen, a reader still judges the owner alive (a stopped process is not a dead one) ...
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    // ... and a second claimer cannot take the stale lock from a live owner.
    let stolen: string;
    try {
      const claim = await sb.store.claimExecution(job.id, { generation: rec.lifecycle.generation, socketPath: socketPathFor(job.id, rec.lifecycle.generation), socketToken: 'x'.repeat(32) });
      stolen = `taken: ${JSON.stringify(claim.fence)}`;
      await claim.release();
    } catch (err) {
      stolen = `refused: ${(err as Error).message}`;
    }
    assert.match(stolen, /^refused: /, stolen);
    process.kill(workerPid, 'SIGCONT');
    stopped = undefined;
    // The refused claimer wrote nothing: the record still names the frozen worker's claim.
    const thawed = await sb.store.read(job.id);
    assert.equal(thawed.execution?.ownerToken, ownerToken, 'the claim in the record is still the frozen worker\'s');
    const end = await sb.waitForState(job.id, ['completed', 'failed', 'orphaned', 'cancelled'], 40_000);
    const log = readFileSync(join(sb.home, 'jobs', job.id, 'worker.log'), 'utf8');
    assert.doesNotMatch(log, /Uncaught|unhandled|\n\s+at .*\(/i, `the worker crashed: ${log.slice(-800)}`);
    assert.equal(end.lifecycle.state, 'completed', `${end.lifecycle.state}: ${end.lifecycle.detail}; worker.log: ${log.slice(-800)}`);
    await sb.waitForWorkerExit(workerPid, 20_000);
    assert.ok(!isAlive(workerPid));
    const timeline = await sb.store.readTimeline(job.id);
    // One claim only, and the end was written under it: nothing was written under a lost claim.
    assert.equal(timeline.filter((e) => e.type === 'claimed').length, 1, timeline.map((e) => e.type).join(','));
    assert.doesNotMatch(log, /compromised/, 'the frozen worker kept its claim');
    console.log(`      ended ${end.lifecycle.state} (${end.lifecycle.detail}); worker.log: ${log.trim().split('\n').slice(-3).join(' | ')}`);
    console.log(`      timeline: ${timeline.map((e) => `${e.type}${e.to ? `→${e.to}` : ''}`).join(', ')}`);
  });
});
