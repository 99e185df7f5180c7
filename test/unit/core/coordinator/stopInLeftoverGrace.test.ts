/**
 * Stop of an agent that has just ended, inside its worker's second of grace for what it left running
 * (endLeftoversOnExit off): Stop ends them and says "stopped 1 process it left running"; the grace
 * then finds none left, and its worker's settling wrote "nothing to say" over Stop's words, so the
 * row said only how the agent ended. Found in review of bug 147's change (bug 146). Real coordinator,
 * worker and processes; both process backends.
 */
import * as assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { findByEnvMarker } from '../../../../src/core/proc';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
import { AGENT_MARKER_ENV } from '../../../../src/core/worker/agentMarker';
import { LEFTOVER_GRACE_MS } from '../../../../src/core/worker/leftovers';
import { useProcessBackend } from '../proc/processBackend';
import { CoordinatorSandbox, useCoordinatorSandbox } from './coordinatorFixture';

// Leaves a daemon in a session of its own, then exits 0.
const AGENT = ['sh', '-c', 'setsid sleep 604 >/dev/null 2>&1 & sleep 0.3; exit 0'];

for (const backend of ['proc', 'portable'] as const) {
  describe(`coordinator: Stop inside the worker's leftover grace (endLeftoversOnExit off), ${backend} backend`, function () {
    this.timeout(60_000);
    let sb!: CoordinatorSandbox;
    useProcessBackend(backend);
    useCoordinatorSandbox((fresh) => (sb = fresh));

    it('keeps saying Stop stopped them once the worker has settled', async () => {
      const c = sb.coordinator({ endLeftoversOnExit: false });
      const job = await c.start({ repo: sb.repo, command: AGENT });
      await sb.waitEnded(job.id);
      const report = await c.stop(job.id);
      assert.equal(report.ended.length, 1, 'Stop ended the daemon');
      // The worker's grace (a second) is over, and its settling written.
      await sleep(LEFTOVER_GRACE_MS + 2000);
      const after = await sb.store.read(job.id);
      assert.deepEqual(findByEnvMarker(AGENT_MARKER_ENV, job.id), []);
      assert.equal(lifecycleDetail(after), 'exit 0; stopped 1 process it left running');
    });
  });
}
