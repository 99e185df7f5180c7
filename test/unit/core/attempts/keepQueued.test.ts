/**
 * Keep This One beside attempts that never ran: still queued (no slot yet), or failed at setup. Hunted
 * for a keep that failed on them or let a queued one start afterwards; none found (these guard it).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust } from '../../../../src/core/repoConfig/trust';
import { join } from 'node:path';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const PROFILES = { writer: { command: 'sh', args: ['-c', 'echo mine > mine.txt; sleep 600'] } };

describe('Attempts: Keep This One with queued attempts', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('cleans up the attempts still queued, and none of them starts afterwards', async () => {
    const c = sb.coordinator({ maxConcurrent: 1, profiles: PROFILES });
    await c.ready;
    const { jobs } = await c.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer', 'writer', 'writer']);
    const first = await sb.waitFor(jobs[0].id, (r) => r.lifecycle.state === 'running' && existsSync(join(r.worktree!, 'mine.txt')));
    const queued = [];
    for (const j of jobs.slice(1)) queued.push(await sb.store.read(j.id));
    assert.deepEqual(queued.map((j) => j.lifecycle.state), ['queued', 'queued']);
    const report = await c.keepAttempt(first.id);
    assert.deepEqual(report.failed, [], JSON.stringify(report));
    assert.deepEqual(report.cleaned.map((r) => r.job.id).sort(), jobs.slice(1).map((j) => j.id).sort(), JSON.stringify(report));
    assert.equal((await sb.store.read(first.id)).lifecycle.state, 'running', 'the kept attempt goes on');
    // Its one slot freed: an attempt the keep left queued would be started now.
    await c.stop(first.id, { force: true });
    await sb.waitEnded(first.id);
    await sleep(1500);
    for (const j of jobs.slice(1)) {
      const after = await sb.store.read(j.id);
      // As the keep's cleanup left it: not launched since (a launch of it would fail it, or run it).
      assert.equal(after.lifecycle.state, 'cancelled', `${j.id}: ${after.lifecycle.state} (${after.lifecycle.detail})`);
      assert.equal(after.lifecycle.detail, 'cancelled by cleanup before it started');
      assert.equal(after.lifecycle.startedAt, null, `${j.id} started after the keep`);
      assert.equal(after.lifecycle.generation, 1, `${j.id} was retried after the keep`);
      assert.equal(after.cleanup?.phase, 'complete', JSON.stringify(after.cleanup));
    }
  });

  it('cleans up an attempt whose setup failed (it never started) beside the kept one', async () => {
    const slots = mkdtempSync(join(tmpdir(), 'pdk-setup-'));
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ setup: `mkdir ${slots}/one 2>/dev/null && exit 7; true` }));
    execFileSync('git', ['add', '.paddock.json'], { cwd: sb.repo });
    execFileSync('git', ['commit', '-qm', 'setup'], { cwd: sb.repo });
    await new RepoConfigTrust(sb.home).allow((await readRepoConfig(sb.repo))!);
    const c = sb.coordinator({ maxConcurrent: 3, profiles: PROFILES });
    await c.ready;
    const { jobs } = await c.startAttempts({ repo: sb.repo, prompt: 'x' }, 2, ['writer', 'writer']);
    const ended = await Promise.race(jobs.map((j) => sb.waitFor(j.id, (r) => r.lifecycle.state === 'failed', 60_000)));
    const other = jobs.find((j) => j.id !== ended.id)!;
    const kept = await sb.waitFor(other.id, (r) => r.lifecycle.state === 'running');
    assert.equal(ended.lifecycle.detail, 'setup failed (exit 7)');
    const report = await c.keepAttempt(kept.id);
    assert.deepEqual(report.failed, []);
    assert.deepEqual(report.cleaned.map((r) => r.job.id), [ended.id]);
    const after = await sb.store.read(ended.id);
    assert.equal(after.cleanup?.phase, 'complete', JSON.stringify(after.cleanup));
    await c.stop(kept.id, { force: true });
  });
});
