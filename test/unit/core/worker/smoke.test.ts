import * as assert from 'node:assert/strict';
import { Sandbox } from './fixtures';

describe('worker smoke', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.dispose());

  it('runs a command to completion', async () => {
    const job = await sb.start(['sh', '-c', 'echo hello; exit 3']);
    const done = await sb.waitForState(job.id, ['completed', 'failed']);
    assert.equal(done.lifecycle.state, 'failed');
    assert.equal(done.lifecycle.exitCode, 3);
    const out = (await sb.store.readOutput(job.id)).toString();
    assert.match(out, /hello/);
  });
});
