import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isLegalTransition, JobStore, LEGAL_TRANSITIONS, LIFECYCLE_STATES, LifecycleState, TERMINAL_STATES } from '../../../../src/core/store';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { sampleJob, useTestBed } from './helpers';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';

describe('lifecycle', () => {
  it('has one table: terminal states lead nowhere, every other state can end', () => {
    for (const state of TERMINAL_STATES) assert.deepEqual(LEGAL_TRANSITIONS[state], []);
    for (const state of LIFECYCLE_STATES) {
      if (TERMINAL_STATES.includes(state)) continue;
      assert.ok(LEGAL_TRANSITIONS[state].some((to) => TERMINAL_STATES.includes(to)), state);
      assert.ok(!LEGAL_TRANSITIONS[state].includes(state), `${state} to itself`);
    }
    assert.ok(isLegalTransition('running', 'waiting') && isLegalTransition('waiting', 'running'));
    assert.ok(!isLegalTransition('running', 'cancelled'), 'cancelling comes before cancelled');
  });

  describe('on a real store', () => {
    let store!: JobStore;
    useTestBed((_bed, fresh) => (store = fresh));

    it('names both states when a transition is illegal', async () => {
      const job = await store.create(sampleJob());
      await assert.rejects(store.transition(job.id, 'running'), /cannot go from queued to running/);
    });

    it('clears pid, worker pid, launch and the execution (socket, token) in a terminal state', async () => {
      const job = await store.create(sampleJob());
      const claim = await store.claimExecution(job.id, { generation: 1, socketPath: socketPathFor(job.id, 1), socketToken: 't'.repeat(20) });
      await store.transition(job.id, 'running', { pid: 4242 }, { fence: claim.fence });
      const running = await store.read(job.id);
      assert.equal(running.lifecycle.pid, 4242);
      assert.equal(running.execution?.socketPath, socketPathFor(job.id, 1));
      const done = await store.transition(job.id, 'completed', { exitCode: 0 }, { fence: claim.fence });
      assert.equal(done.lifecycle.pid, null);
      assert.equal(done.lifecycle.workerPid, null);
      assert.equal(done.execution, null);
      assert.equal(done.launch, null);
      assert.equal(done.lifecycle.exitCode, 0);
      assert.ok(done.lifecycle.endedAt);
      await claim.release();
    });

    it("a retry clears the ended execution's leftoversFate: its words are not said of the next end", async () => {
      const job = await store.create(sampleJob());
      await store.transition(job.id, 'starting');
      await store.transition(job.id, 'running');
      await store.transition(job.id, 'completed', { exitCode: 0, detail: 'exit 0' });
      await store.update(job.id, (j) => ({ ...j, leftovers: [], leftoversFate: { count: 1, generation: 1 } }));
      assert.equal(lifecycleDetail(await store.read(job.id)), 'exit 0; the 1 process it left running exited');
      const retried = await store.beginGeneration(job.id);
      assert.equal(retried.leftoversFate, null);
      await store.transition(job.id, 'starting');
      await store.transition(job.id, 'running');
      const again = await store.transition(job.id, 'completed', { exitCode: 0, detail: 'exit 0' });
      assert.equal(again.lifecycle.generation, 2);
      assert.equal(lifecycleDetail(again), 'exit 0');
    });

    it('property: random operation sequences never leave the table, and fencing refuses every stale write', async () => {
      type Op =
        | { kind: 'transition'; to: LifecycleState; fenced: boolean }
        | { kind: 'retry' }
        | { kind: 'claim' }
        | { kind: 'staleWrite'; which: number };
      const opArb: fc.Arbitrary<Op> = fc.oneof(
        { weight: 6, arbitrary: fc.record({ kind: fc.constant('transition' as const), to: fc.constantFrom(...LIFECYCLE_STATES), fenced: fc.boolean() }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'retry' as const }) },
        { weight: 2, arbitrary: fc.constant({ kind: 'claim' as const }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('staleWrite' as const), which: fc.nat() }) },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
          const job = await store.create(sampleJob());
          const claims: Awaited<ReturnType<JobStore['claimExecution']>>[] = [];
          try {
            for (const op of ops) {
              const before = await store.read(job.id);
              const current = claims.find((c) => c.fence.ownerToken === before.execution?.ownerToken);
              const stale = claims.filter((c) => c !== current);
              if (op.kind === 'transition') {
                const fence = op.fenced ? current?.fence : undefined;
                const legal = isLegalTransition(before.lifecycle.state, op.to) && (!op.fenced || fence !== undefined);
                const result = await store.transition(job.id, op.to, {}, { fence: op.fenced ? (fence ?? { ownerToken: 'x'.repeat(16), generation: 1 }) : undefined }).then(
                  () => 'ok',
                  (e: Error) => e.message,
                );
                assert.equal(result === 'ok', legal, `${before.lifecycle.state} → ${op.to}: ${result}`);
              } else if (op.kind === 'retry') {
                const ok = TERMINAL_STATES.includes(before.lifecycle.state);
                const result = await store.beginGeneration(job.id).then(() => true, () => false);
                assert.equal(result, ok);
              } else if (op.kind === 'claim') {
                const ok = before.lifecycle.state === 'queued' || before.lifecycle.state === 'starting';
                const claim = await store
                  .claimExecution(job.id, { generation: before.lifecycle.generation, socketPath: socketPathFor(job.id, before.lifecycle.generation), socketToken: 't'.repeat(20) })
                  .catch(() => undefined);
                // A live owner (this process) already holding it also refuses.
                assert.equal(claim !== undefined, ok && !current);
                if (claim) claims.push(claim);
              } else if (stale.length > 0) {
                const staleClaim = stale[op.which % stale.length];
                await assert.rejects(
                  store.update(job.id, (j) => {
                    j.title = 'stale write';
                  }, { fence: staleClaim.fence }),
                  /no longer owned/,
                );
              }
              const after = await store.read(job.id);
              assert.notEqual(after.title, 'stale write');
              const from = before.lifecycle.state;
              const to = after.lifecycle.state;
              if (after.lifecycle.generation === before.lifecycle.generation && from !== to) {
                assert.ok(isLegalTransition(from, to), `${from} → ${to}`);
              }
              if (TERMINAL_STATES.includes(to)) {
                assert.equal(after.execution, null);
                assert.equal(after.lifecycle.pid, null);
              }
            }
          } finally {
            await Promise.all(claims.map((c) => c.release()));
          }
        }),
        { numRuns: 25 },
      );
    });
  });
});
