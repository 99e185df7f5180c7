/**
 * Bug 163: a connection that has not authenticated yet may hold the worker's memory. Every
 * connection may buffer one line of up to 1 MiB (an `input` of 64 Ki characters escaped); before
 * its `attach` or `hello` that was so too, though no first frame is longer than a few hundred
 * bytes: any process able to open the socket (no token needed) could make the worker hold 1 MiB
 * per connection for the 10 s the handshake is given, 150 connections 156 MB. The agent's own token
 * (in its environment: any program the agent runs has it) may only signal, yet it too could hold
 * 1 MiB per connection, for as long as the connection stayed open.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection, Socket } from 'node:net';
import { join } from 'node:path';
import { rssKiB } from '../../../faults/faultKit';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { sleep, useWorkerSandbox, waitUntil } from './fixtures';

function open(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves once what was written left this process, or the connection closed. */
function flushed(s: Socket): Promise<void> {
  if (s.writableLength === 0 || s.destroyed) return Promise.resolve();
  return Promise.race([new Promise<void>((r) => s.once('drain', r)), new Promise<void>((r) => s.once('close', r)), sleep(10_000)]);
}

describe('a connection before its first frame', function () {
  this.timeout(120_000);
  const ctx = useWorkerSandbox();

  it('cannot make the worker hold a megabyte: an unfinished first line is cut off at a few KiB', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'stty raw -echo; cat > /dev/null'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    await sleep(300);
    const before = rssKiB(exec.pid)!;
    const sockets: Socket[] = [];
    const answers: string[] = [];
    try {
      for (let i = 0; i < 150; i++) {
        const s = await open(exec.socketPath);
        s.on('error', () => undefined);
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('close', () => answers.push(got));
        sockets.push(s);
        // A first line that never ends: 1 MiB less a byte, the longest the worker buffered.
        s.write(Buffer.alloc(1024 * 1024 - 1, 0x61));
      }
      await Promise.all(sockets.map(flushed));
      await sleep(500);
      const grown = rssKiB(exec.pid)! - before;
      assert.ok(grown < 60 * 1024, `the worker grew by ${grown} KiB for 150 connections that never authenticated`);
      const deadline = Date.now() + 5000;
      while (answers.length < sockets.length && Date.now() < deadline) await sleep(50);
      assert.equal(answers.length, sockets.length, 'each was closed at once, well before the handshake time');
      for (const a of answers) assert.match(a, /"fatal":true/);
      assert.match(answers[0], /Closing the connection: first frame longer than \d+ bytes\./);
    } finally {
      for (const s of sockets) s.destroy();
    }
    // A real viewer and a control client still authenticate; the agent runs on.
    const c = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(c);
    assert.equal((await c.attach({ cols: 80, rows: 24, readOnly: false })).type, 'ready');
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
  });

  it("cannot be made to hold a megabyte per connection by the agent's own token, which may only signal", async () => {
    const { sb } = ctx;
    // The agent writes its token where the test can read it, as a hostile agent could use it.
    const job = await sb.start(['sh', '-c', 'printf %s "$PADDOCK_AGENT_TOKEN" > agent-token; stty raw -echo; cat > /dev/null'], { waitFor: ['running'] });
    const tokenFile = join(sb.cwd, 'agent-token');
    await waitUntil('the agent to write its token', () => existsSync(tokenFile) && readFileSync(tokenFile, 'utf8').length > 0);
    const agentToken = readFileSync(tokenFile, 'utf8');
    const exec = (await sb.store.read(job.id)).execution!;
    await sleep(300);
    const before = rssKiB(exec.pid)!;
    const sockets: Socket[] = [];
    const answers: string[] = [];
    try {
      for (let i = 0; i < 150; i++) {
        const s = await open(exec.socketPath);
        s.on('error', () => undefined);
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('close', () => answers.push(got));
        sockets.push(s);
        s.write(`${JSON.stringify({ type: 'hello', token: agentToken })}\n${JSON.stringify({ type: 'signal', id: 1, state: 'running' })}\n`);
        s.write(Buffer.alloc(1024 * 1024 - 1, 0x61));
      }
      await Promise.all(sockets.map(flushed));
      await sleep(500);
      const grown = rssKiB(exec.pid)! - before;
      assert.ok(grown < 60 * 1024, `the worker grew by ${grown} KiB for 150 agent connections`);
      const deadline = Date.now() + 5000;
      while (answers.length < sockets.length && Date.now() < deadline) await sleep(50);
      assert.equal(answers.length, sockets.length, 'each was closed');
      assert.match(answers[0], /"type":"welcome".*"role":"agent"/s);
      assert.match(answers[0], /"type":"ack","id":1/, 'its signal was taken');
      assert.match(answers[0], /Closing the connection: frame longer than \d+ bytes\./);
    } finally {
      for (const s of sockets) s.destroy();
    }
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
  });

  it('a first frame with the longest token the schema allows, every character escaped, is still taken', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'stty raw -echo; cat > /dev/null'], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    const s = await open(exec.socketPath);
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    // 256 characters as \uXXXX: 1,536 bytes of token, a wrong one (answered, not cut off).
    const token = '\\u0041'.repeat(256);
    s.write(`{"type":"attach","version":1,"token":"${token}","cols":1000,"rows":500,"readOnly":false,"binaryOutput":true}\n`);
    await new Promise((r) => s.on('close', r));
    assert.match(got, /wrong token/);
  });
});
