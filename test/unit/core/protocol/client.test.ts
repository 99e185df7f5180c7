/** The client against small real socket servers that misbehave on purpose. */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { binaryOutputHeader, encodeFrame } from '../../../../src/core/protocol/framing';
import { socketFileName } from '../../../../src/core/protocol/runtimeDir';
import { sampleRecord } from '../store/helpers';

describe('WorkerClient', () => {
  let dir: string;
  let server: Server | undefined;
  const sockets: Socket[] = [];
  beforeEach(() => (dir = mkdtempSync('/tmp/pdk-cl-')));
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  function serve(onLine: (line: string, socket: Socket) => void): Promise<string> {
    const path = join(dir, 's.sock');
    server = createServer((s) => {
      sockets.push(s);
      let buf = '';
      s.on('data', (d) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, nl), s);
          buf = buf.slice(nl + 1);
        }
      });
    });
    return new Promise((r) => server!.listen(path, () => r(path)));
  }

  it('connects to the socket a record names only in a socket directory of this user\'s that no one else can reach (bug 48)', async () => {
    const id = 'abc123de';
    const socketDir = join(dir, 'r');
    mkdirSync(socketDir, { mode: 0o700 });
    const path = join(socketDir, socketFileName(id, 1));
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server!.listen(path, () => r()));
    const job = sampleRecord(id);
    job.lifecycle.state = 'running';
    job.execution = { ownerToken: 'o'.repeat(32), generation: 1, pid: process.pid, startTime: 1, bootId: 'b', socketPath: path, socketToken: 't'.repeat(32), claimedAt: new Date().toISOString() };
    // The client's one dependency: what reads the record (the store, here the record as the store returned it).
    const reader = { read: async () => job };
    chmodSync(socketDir, 0o755);
    await assert.rejects(WorkerClient.connect(reader, id, { connectTimeoutMs: 200 }), (err: Error) => {
      assert.equal(err.message, `Will not connect to agent ${id}'s worker: the socket directory ${socketDir} is accessible to other users (mode 755); run chmod 700 on it.`);
      return true;
    });
    chmodSync(socketDir, 0o700);
    const client = await WorkerClient.connect(reader, id, { connectTimeoutMs: 1000 });
    client.dispose();
  });

  it('retries while the socket does not exist yet, then gives up with a clear error', async () => {
    await assert.rejects(WorkerClient.connectToSocket(join(dir, 'missing.sock'), 't', { connectTimeoutMs: 200 }), /Cannot connect/);
  });

  it('settles a request with a timeout when the worker never answers', async () => {
    const path = await serve(() => undefined);
    const c = await WorkerClient.connectToSocket(path, 'tok', { requestTimeoutMs: 150 });
    try {
      await assert.rejects(c.hello(), /did not answer/);
    } finally {
      c.dispose();
    }
  });

  it('rejects pending requests when the connection closes', async () => {
    const path = await serve((_line, s) => s.destroy());
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      await assert.rejects(c.hello(), /connection closed/);
      await assert.rejects(c.send('x'), /closed/);
    } finally {
      c.dispose();
    }
  });

  it('closes on an invalid frame from the worker and reports why', async () => {
    const path = await serve((_line, s) => s.write('{"type":"bogus"}\n'));
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      const closed = new Promise<{ reason?: string }>((r) => c.onDidClose(r));
      await assert.rejects(c.hello(), /invalid frame/);
      assert.match((await closed).reason ?? '', /invalid frame/);
    } finally {
      c.dispose();
    }
  });

  it('passes the worker fatal error through to the handshake', async () => {
    const path = await serve((_line, s) => {
      s.write(encodeFrame({ type: 'error', message: 'Closing the connection: wrong token.', fatal: true }));
      s.end();
    });
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      await assert.rejects(c.attach({ cols: 80, rows: 24, readOnly: true }), /wrong token/);
    } finally {
      c.dispose();
    }
  });

  it('delivers output that arrived in the same read as `ready` to a subscriber added after attach resolves', async () => {
    const ready = { type: 'ready', version: 1, screen: '', cols: 80, rows: 24, state: 'running', readOnly: true, resync: false, exit: null };
    const path = await serve((_line, s) => {
      s.write(encodeFrame(ready) + encodeFrame({ type: 'output', data: 'first' }) + encodeFrame({ type: 'exit', code: 0, signal: null, state: 'completed' }));
      s.end();
    });
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      await c.attach({ cols: 80, rows: 24, readOnly: true });
      const events: string[] = [];
      c.onDidOutput((d) => events.push(`output:${d}`));
      c.onDidExit((e) => events.push(`exit:${e.code}`));
      await new Promise<void>((r) => c.onDidClose(() => r()));
      events.push('close');
      assert.deepEqual(events, ['output:first', 'exit:0', 'close']);
    } finally {
      c.dispose();
    }
  });

  it('asks for binary output frames and delivers them in order with the JSON frames, however the bytes arrive', async () => {
    const ready = { type: 'ready', version: 1, screen: '', cols: 80, rows: 24, state: 'running', readOnly: true, resync: false, exit: null };
    const texts = ['ab', 'ünï✓ 😀'.repeat(5000), 'c'];
    let attach: Record<string, unknown> | undefined;
    const path = await serve((line, s) => {
      attach = JSON.parse(line);
      const binary = (t: string) => Buffer.concat([binaryOutputHeader(Buffer.byteLength(t)), Buffer.from(t)]);
      const all = Buffer.concat([Buffer.from(encodeFrame(ready)), binary(texts[0]), Buffer.from(encodeFrame({ type: 'output', data: texts[1] })), binary(texts[1]), binary(texts[2])]);
      // Odd-sized writes with pauses: headers, payloads and characters are cut between reads.
      const writeFrom = (at: number) => {
        if (at >= all.length) return void s.write(encodeFrame({ type: 'exit', code: 0, signal: null, state: 'completed' }));
        s.write(all.subarray(at, at + 7919));
        setTimeout(() => writeFrom(at + 7919), 1);
      };
      writeFrom(0);
    });
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      const out: string[] = [];
      c.onDidOutput((d) => out.push(d));
      await c.attach({ cols: 80, rows: 24, readOnly: true });
      await new Promise<void>((r) => c.onDidExit(() => r()));
      assert.equal(attach?.binaryOutput, true);
      assert.deepEqual(out, [texts[0], texts[1], texts[1], texts[2]]);
    } finally {
      c.dispose();
    }
  });

  it('closes on a binary frame with an invalid length and reports why', async () => {
    const path = await serve((_line, s) => s.write(binaryOutputHeader(0)));
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      const closed = new Promise<{ reason?: string }>((r) => c.onDidClose(r));
      await assert.rejects(c.hello(), /closed/);
      assert.match((await closed).reason ?? '', /invalid frame \(binary frame of invalid length 0\)/);
    } finally {
      c.dispose();
    }
  });

  it('matches answers to requests by id', async () => {
    const path = await serve((line, s) => {
      const msg = JSON.parse(line);
      if (msg.type === 'hello') s.write(encodeFrame({ type: 'welcome', version: 1, state: 'running', role: 'control' }));
      if (msg.type === 'send') setTimeout(() => s.write(encodeFrame({ type: 'ack', id: msg.id })), msg.text === 'slow' ? 50 : 0);
      if (msg.type === 'signal') s.write(encodeFrame({ type: 'error', id: msg.id, message: 'Nope.', fatal: false }));
    });
    const c = await WorkerClient.connectToSocket(path, 'tok');
    try {
      assert.deepEqual(await c.hello(), { state: 'running', role: 'control' });
      await Promise.all([c.send('slow'), c.send('fast')]);
      await assert.rejects(c.signal('waiting'), /Nope/);
    } finally {
      c.dispose();
    }
  });
});
