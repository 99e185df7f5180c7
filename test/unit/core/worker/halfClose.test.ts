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
import { WorkerClient } from '../../../../src/core/protocol/client';
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
    const viewerStarted = Date.now();
    const viewer = await requestThenHalfClose(exec.socketPath, [{ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true }], 5000);
    assert.deepEqual(viewer.map((a) => a.type), ['ready'], 'a viewer that ends its input gets its screen and is detached');
    assert.ok(Date.now() - viewerStarted < 1000, `a viewer owed only its screen is closed at once (${Date.now() - viewerStarted} ms)`);
  });

  for (const [how, after] of [
    // (Came before as well: the end of its input is seen after the screen is taken. Kept as a guard.)
    ['half-closes', []],
    ['detaches', [{ type: 'detach' }]],
    ['sends a bad frame', [{ type: 'nonsense' }]],
  ] as const) {
    it(`a viewer that ${how} right after its attach gets its screen, \`ready\` (bug 203)`, async () => {
      const { sb } = ctx;
      // It keeps printing under its first row: the screen is taken behind output still being parsed.
      const job = await sb.start(['sh', '-c', 'printf "SCREEN-MARK\\n"; while :; do printf "\\033[2;1H%s" "$$"; done'], { waitFor: ['running'] });
      const exec = (await sb.store.read(job.id)).execution!;
      const watcher = await WorkerClient.connect(sb.store, job.id);
      ctx.clients.push(watcher);
      let seen = (await watcher.attach({ cols: 80, rows: 24, readOnly: true })).screen;
      watcher.onDidOutput((d) => (seen += d));
      await waitUntil('the agent printed', () => seen.includes('SCREEN-MARK'));
      const attach = { type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true };
      const answers = await requestThenHalfClose(exec.socketPath, [attach, ...after], 5000);
      const types = answers.map((a) => a.type);
      // Only the output the screen was ahead of when its input ended may follow it; a bad frame's error comes last.
      const expected = after.length && after[0].type === 'nonsense' ? ['ready', 'error'] : ['ready'];
      assert.deepEqual(types.filter((t) => t !== 'output'), expected, `got ${JSON.stringify(types)}`);
      assert.equal(types[0], 'ready');
      assert.ok(((answers[0] as { screen?: string }).screen ?? '').includes('SCREEN-MARK'), 'the screen shows what the agent printed');
    });
  }

  it('a viewer that asks for a fresh screen and detaches gets it before the close (bug 203)', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'printf "SCREEN-MARK\\n"; while :; do printf "\\033[2;1H%s" "$$"; done'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const s = createConnection({ path: exec.socketPath, allowHalfOpen: true });
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    // The worker's end of the connection (the client, half-open, would stay open for writing).
    const ended = new Promise<void>((r) => s.on('end', () => r()));
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write(`${JSON.stringify({ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true })}\n`);
    await waitUntil('the first screen', () => got.includes('"type":"ready"'));
    s.write(`${JSON.stringify({ type: 'refresh' })}\n${JSON.stringify({ type: 'detach' })}\n`);
    await Promise.race([ended, new Promise((r) => setTimeout(r, 10_000))]);
    s.destroy();
    const readies = got.split('\n').filter((l) => l.startsWith('{"type":"ready"'));
    assert.equal(readies.length, 2, `the fresh screen came: ${readies.length} ready frame(s)`);
    assert.match(readies[1], /"resync":true/);
  });

  it('a writable viewer that half-closes with sends pending is detached at once: no output, and the size goes back (E3-4)', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'while true; do stty size > size.txt; echo tick; sleep 0.05; done'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const size = () => {
      try {
        return readFileSync(join(sb.cwd, 'size.txt'), 'utf8').trim();
      } catch {
        return '';
      }
    };
    const b = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(b);
    await b.attach({ cols: 100, rows: 30, readOnly: false });
    await waitUntil('the agent at the size of viewer B', () => size() === '30 100');
    // A script attaches writable at 70x20 and half-closes with 100 sends to carry out (~30 ms each).
    const sends = Array.from({ length: 100 }, (_, i) => ({ type: 'send', id: i + 1, text: '' }));
    // Before the fix the agent stayed at 70x20 until the script's last answer, well past 300 ms.
    const started = Date.now();
    let sizeBackAt = 0;
    const poll = setInterval(() => (sizeBackAt ||= Date.now() - started > 300 && size() === '30 100' ? Date.now() : 0), 20);
    const answers = await requestThenHalfClose(exec.socketPath, [{ type: 'attach', token: exec.socketToken, cols: 70, rows: 20, readOnly: false }, ...sends]);
    const closedAt = Date.now();
    clearInterval(poll);
    assert.equal(answers.filter((a) => a.type === 'ack').length, sends.length, 'every send was answered');
    assert.ok(sizeBackAt > 0 && sizeBackAt < closedAt, `the size went back to B's 100x30 before the script's last answer (${sizeBackAt ? closedAt - sizeBackAt : 'never'} ms before)`);
    // Only the output the screen it attached to was ahead of (right after `ready`) may reach it.
    const afterReady = answers.slice(answers.findIndex((a) => a.type === 'ready') + 1);
    const firstOther = afterReady.findIndex((a) => a.type !== 'output');
    const rest = firstOther < 0 ? [] : afterReady.slice(firstOther);
    assert.equal(rest.filter((a) => a.type === 'output').length, 0, `a detached viewer gets no output: ${JSON.stringify(answers.map((a) => a.type))}`);
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
