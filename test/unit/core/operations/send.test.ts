/** The send operation on a real worker: it types into a live agent, and the rule and the limit refuse the rest before connecting. */
import * as assert from 'node:assert/strict';
import { PaddockError } from '../../../../src/core/common/errors';
import { MAX_INPUT_CHARS } from '../../../../src/core/protocol/messages';
import { sendToAgent } from '../../../../src/core/operations/send';
import { sendBlocker } from '../../../../src/core/operations/rules';
import { Sandbox, waitUntil } from '../worker/fixtures';

describe('send operation', function () {
  this.timeout(30_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.dispose());

  it('types the text and Enter into a running agent', async () => {
    const job = await sb.start(['sh', '-c', 'read line; echo "got:$line"; sleep 5']);
    await sendToAgent(sb.store, job.id, 'hello');
    await waitUntil('the echo', async () => (await sb.store.readOutput(job.id)).toString().includes('got:hello'));
  });

  it('refuses an ended agent with the rule, as bad input', async () => {
    const job = await sb.start(['true']);
    const ended = await sb.waitForState(job.id, ['completed']);
    await assert.rejects(sendToAgent(sb.store, job.id, 'hi'), (err: unknown) => {
      assert.ok(err instanceof PaddockError);
      assert.equal(err.kind, 'usage');
      assert.equal(err.message, sendBlocker(ended));
      return true;
    });
  });

  it('refuses over-long text before reading the store', async () => {
    // No such agent: the limit is said first, so nothing is read or connected.
    await assert.rejects(sendToAgent(sb.store, 'abcdef12', 'x'.repeat(MAX_INPUT_CHARS + 1)), (err: unknown) => err instanceof PaddockError && err.code === 'TOO_LONG');
  });
});
