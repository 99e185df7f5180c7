/**
 * Texts sent at once are typed one after the other, each with its own Enter (bug 58). A send types
 * the text, pauses, then types Enter; a second send arriving in that pause typed its text into the
 * first's line (the start's prompt and a Send Prompt to All, or two `paddock send`s at once).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('Worker: texts sent at once', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('are typed one after the other, each ending its own line', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'read a; read b; read c; printf "%s|%s|%s\\n" "$a" "$b" "$c" > got.txt'] });
    await sb.waitForState(job.id, ['running']);
    const client = await WorkerClient.connect(sb.store, job.id);
    try {
      await client.hello();
      // Three requests on one connection, not waiting for each other: they reach the worker together.
      await Promise.all([client.send('first line'), client.send('second line'), client.send('third line')]);
    } finally {
      client.dispose();
    }
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.equal(readFileSync(join(job.worktree!, 'got.txt'), 'utf8'), 'first line|second line|third line\n');
  });
});
