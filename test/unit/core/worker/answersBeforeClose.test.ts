/**
 * Bug 173: a connection that ended its requests otherwise than by half-closing (a bad frame after a
 * request, an explicit `detach` right after a `send`) was closed at once: the `send` was typed in and
 * its `ack` lost, a `stop` stopped the agent and its `stopped` lost. The answers now come first, a bad
 * frame's fatal `error` last, then the close.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { useWorkerSandbox, waitUntil } from './fixtures';

type Answer = { type: string; id?: number; fatal?: boolean; state?: string; message?: string };

/** Connects, writes `frames` in one write (the socket's sending side stays open), and resolves with every line the worker sent until it closed. */
function framesUntilClosed(path: string, frames: (object | string)[], timeoutMs = 20_000): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path, allowHalfOpen: true });
    let got = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`the worker kept the connection open; got ${got.slice(0, 300)}`));
    }, timeoutMs);
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('end', () => s.end()); // the worker ended its side: this client ends its own, as any would
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Answer));
    });
    s.once('connect', () => s.write(frames.map((f) => `${typeof f === 'string' ? f : JSON.stringify(f)}\n`).join('')));
  });
}

function fileIs(path: string, text: string): boolean {
  try {
    return readFileSync(path, 'utf8') === text;
  } catch {
    return false;
  }
}

describe('a connection that ends its requests with a bad frame or a detach (bug 173)', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();
  const recorder = ['sh', '-c', 'while read line; do printf "%s\\n" "$line" >> got.txt; done'];

  it('a bad frame after a send: the ack comes, then the fatal error, then the close; the text typed in once', async () => {
    const { sb } = ctx;
    const job = await sb.start(recorder, { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const answers = await framesUntilClosed(exec.socketPath, [{ type: 'hello', token: exec.socketToken }, { type: 'send', id: 3, text: 'before the bad frame' }, '{"type":"bogus"}']);
    assert.deepEqual(answers.map((a) => `${a.type}${a.id ?? ''}`), ['welcome', 'ack3', 'error'], JSON.stringify(answers));
    assert.equal(answers[2].fatal, true);
    await waitUntil('the text typed in', () => fileIs(join(sb.cwd, 'got.txt'), 'before the bad frame\n'));
  });

  it('a bad frame after a stop: `stopped` comes, then the fatal error', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sleep', '60'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const answers = await framesUntilClosed(exec.socketPath, [{ type: 'hello', token: exec.socketToken }, { type: 'stop', id: 4, force: false }, 'not json']);
    const types = answers.filter((a) => a.type !== 'exit').map((a) => `${a.type}${a.id ?? ''}`);
    assert.deepEqual(types, ['welcome', 'stopped4', 'error'], JSON.stringify(answers));
    assert.equal(answers.find((a) => a.type === 'stopped')?.state, 'cancelled');
  });

  for (const role of ['control', 'viewer'] as const) {
    it(`a ${role} that detaches right after its send gets the ack, and the text is typed in once`, async () => {
      const { sb } = ctx;
      const job = await sb.start(recorder, { waitFor: ['running'] });
      const exec = (await sb.store.read(job.id)).execution!;
      const first = role === 'control' ? { type: 'hello', token: exec.socketToken } : { type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: false };
      const answers = await framesUntilClosed(exec.socketPath, [first, { type: 'send', id: 5, text: `from a ${role}` }, { type: 'detach' }]);
      const ack = answers.find((a) => a.type === 'ack');
      assert.ok(ack, `the send was answered: ${JSON.stringify(answers.map((a) => a.type))}`);
      assert.equal(ack.id, 5);
      await waitUntil('the text typed in', () => fileIs(join(sb.cwd, 'got.txt'), `from a ${role}\n`));
    });
  }

  it('a viewer that detaches owing nothing is closed at once, as before (a guard)', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sleep', '60'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const started = Date.now();
    await framesUntilClosed(exec.socketPath, [{ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true }, { type: 'detach' }]);
    assert.ok(Date.now() - started < 900, `closed after ${Date.now() - started} ms`);
  });
});
