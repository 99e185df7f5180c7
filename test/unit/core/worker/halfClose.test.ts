/**
 * Bug 165: a client that sends its request and then closes its sending side (a script through
 * `socat` or `nc -N`, any client that shuts down writing once it has nothing more to say) got no
 * answer to a request the worker carried out: the worker closed the whole connection at the end of
 * the client's input, so a `send` was typed in and its `ack` lost, a `stop` stopped the agent and
 * its `stopped` (the durable state, the survivors) lost.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { useWorkerSandbox, waitUntil } from './fixtures';

/**
 * Connects, writes `frames`, shuts down writing, and resolves with every line the worker sent until
 * it closed; reads nothing for the first `readAfterMs` (its answers wait in the worker meanwhile).
 */
function requestThenHalfClose(path: string, frames: object[], timeoutMs = 20_000, readAfterMs = 0): Promise<{ type: string; id?: number; state?: string; message?: string }[]> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path, allowHalfOpen: true });
    let got = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`the worker kept the connection open; got ${got.slice(0, 300)}`));
    }, timeoutMs);
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)));
    });
    if (readAfterMs > 0) {
      s.pause();
      setTimeout(() => s.resume(), readAfterMs);
    }
    s.once('connect', () => {
      s.write(frames.map((f) => `${JSON.stringify(f)}\n`).join(''));
      s.end();
    });
  });
}

describe('a client that closes its sending side after its request', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();

  it('gets the ack of its send, and the text is typed in', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'read line; printf "%s\\n" "$line" > got.txt; sleep 30'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const answers = await requestThenHalfClose(exec.socketPath, [{ type: 'hello', token: exec.socketToken }, { type: 'send', id: 7, text: 'sent by a script' }]);
    assert.deepEqual(answers.map((a) => a.type), ['welcome', 'ack']);
    assert.equal(answers[1].id, 7);
    await waitUntil('the text typed in', () => {
      try {
        return readFileSync(join(sb.cwd, 'got.txt'), 'utf8') === 'sent by a script\n';
      } catch {
        return false;
      }
    });
  });

  it('a writable viewer gets the ack of its send, and the text is typed in once', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'while read line; do printf "%s\\n" "$line" >> got.txt; done'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const attach = { type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: false };
    const answers = await requestThenHalfClose(exec.socketPath, [attach, { type: 'send', id: 9, text: 'from a viewer' }]);
    const ack = answers.find((a) => a.type === 'ack');
    assert.ok(ack, `the viewer's send was answered: ${JSON.stringify(answers.map((a) => a.type))}`);
    assert.equal(ack.id, 9);
    await waitUntil('the text typed in', () => {
      try {
        return readFileSync(join(sb.cwd, 'got.txt'), 'utf8') === 'from a viewer\n';
      } catch {
        return false;
      }
    });
  });

  it('gets `stopped` for its stop, once the stop is durable', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'sleep 60'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const answers = await requestThenHalfClose(exec.socketPath, [{ type: 'hello', token: exec.socketToken }, { type: 'stop', id: 3, force: true }]);
    const stopped = answers.find((a) => a.type === 'stopped');
    assert.ok(stopped, `the stop was answered: ${JSON.stringify(answers)}`);
    assert.equal(stopped.id, 3);
    assert.equal(stopped.state, 'cancelled');
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'cancelled');
  });

  it('a writable viewer gets `stopped` for its stop', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'sleep 60'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const attach = { type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: false };
    const answers = await requestThenHalfClose(exec.socketPath, [attach, { type: 'stop', id: 4, force: true }]);
    const stopped = answers.find((a) => a.type === 'stopped');
    assert.ok(stopped, `the viewer's stop was answered: ${JSON.stringify(answers.map((a) => a.type))}`);
    assert.equal(stopped.id, 4);
    assert.equal(stopped.state, 'cancelled');
  });

  it('a connection that half-closes with nothing asked is closed at once, as before (a guard)', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'sleep 60'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const started = Date.now();
    const answers = await requestThenHalfClose(exec.socketPath, [{ type: 'hello', token: exec.socketToken }, { type: 'signal', id: 1, state: 'running' }], 5000);
    assert.deepEqual(answers.map((a) => a.type), ['welcome', 'ack']);
    assert.ok(Date.now() - started < 2000);
    const viewer = await requestThenHalfClose(exec.socketPath, [{ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true }], 5000);
    assert.ok(viewer.length <= 1, 'a viewer that ends its input is detached');
  });
  it('gets every answer it has not read yet when it half-closes with nothing left to carry out', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'sleep 60'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    // Each `refresh` of a control client is refused at once: more refusals than the socket's kernel
    // buffer holds, so the last of them wait in the worker when it sees the end of the input.
    const asked = 2000;
    const frames = [{ type: 'hello', token: exec.socketToken }, ...Array.from({ length: asked }, () => ({ type: 'refresh' }))];
    const answers = await requestThenHalfClose(exec.socketPath, frames, 20_000, 200);
    assert.equal(answers.filter((a) => a.type === 'error').length, asked, `every refusal came (${answers.length - 1} of ${asked})`);
  });
});
