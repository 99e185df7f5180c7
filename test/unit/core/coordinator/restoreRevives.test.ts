/**
 * Restore Worktree back to the agent's own path gives it its worktree again: every rule (retry, check,
 * update, the tree's worktree actions, Clean Up) sees it live, its evidence stays, and a second
 * cleanup captures again before removing (an edit made after the restore survives the round trip).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBlocker, cleanupBlocker, hasLiveWorktree, retryBlocker, updateBlocker } from '../../../../src/core/operations/rules';
import { capabilitiesOf } from '../../../../src/ui/tree/presentation';
import { CoordinatorSandbox, useCoordinatorSandbox } from './coordinatorFixture';

describe('Coordinator: a restore to the worktree path revives the agent', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('restored to its old path, the agent is no longer cleaned up; restore, edit, clean up, restore keeps the edit', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo first > work.txt'] });
    await sb.waitEnded(job.id);
    const cleaned = (await c.cleanup(job.id)).job;
    assert.equal(cleaned.cleanup?.phase, 'complete');
    const evidence = cleaned.evidence;

    await c.restore(job.id);
    const restored = await sb.store.read(job.id);
    assert.equal(restored.cleanup, null, 'the finished cleanup no longer describes the agent');
    assert.deepEqual(restored.evidence, evidence, 'the evidence stays');
    assert.equal(hasLiveWorktree(restored), true);
    assert.equal(retryBlocker(restored), null);
    assert.equal(checkBlocker(restored), null);
    assert.equal(updateBlocker(restored), null);
    assert.equal(cleanupBlocker(restored), null);
    for (const cap of ['worktree', 'retry', 'check', 'update', 'cleanup']) assert.ok(capabilitiesOf(restored).includes(cap), cap);
    assert.equal(capabilitiesOf(restored).includes('forget'), false, 'not removed from the list with a worktree on disk');

    writeFileSync(join(job.worktree!, 'work.txt'), 'edited after the restore\n');
    const again = (await c.cleanup(job.id)).job;
    assert.equal(again.cleanup?.phase, 'complete', again.cleanup?.lastError ?? '');
    assert.equal(existsSync(job.worktree!), false);
    await c.restore(job.id);
    assert.equal(readFileSync(join(job.worktree!, 'work.txt'), 'utf8'), 'edited after the restore\n');
  });

  it('a revived agent takes its ports back, or a free block when another agent took them since its cleanup', async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45300-45305' } });
    const a = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual(a.setup?.ports, [45300, 45301]);
    await sb.waitEnded(a.id);
    await c.cleanup(a.id);
    // Nobody took them: the same block again.
    await c.restore(a.id);
    assert.deepEqual((await sb.store.read(a.id)).setup?.ports, [45300, 45301]);
    await c.cleanup(a.id);
    // Released by the cleanup and given to b: a gets another block, never b's.
    const b = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual(b.setup?.ports, [45300, 45301]);
    await c.restore(a.id);
    const revived = await sb.store.read(a.id);
    assert.deepEqual(revived.setup?.ports, [45302, 45303]);
    assert.deepEqual((await sb.store.read(b.id)).setup?.ports, [45300, 45301]);
    const c2 = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual(c2.setup?.ports, [45304, 45305], 'the next start sees both blocks held');
  });

  it('a restore into another folder is a copy: the record still says cleaned up', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo first > work.txt'] });
    await sb.waitEnded(job.id);
    await c.cleanup(job.id);
    const elsewhere = join(sb.root, 'copy');
    await c.restore(job.id, elsewhere);
    assert.equal(readFileSync(join(elsewhere, 'work.txt'), 'utf8'), 'first\n');
    const after = await sb.store.read(job.id);
    assert.equal(after.cleanup?.phase, 'complete');
    assert.equal(hasLiveWorktree(after), false);
  });
});
