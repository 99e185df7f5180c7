/**
 * The control socket under abuse: bad tokens, malformed and oversized frames,
 * random bytes, early closes, a fuzz loop, and a viewer that stops reading
 * while the agent floods. The worker and the agent must keep going.
 */
import * as assert from 'node:assert/strict';
import { createConnection, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { readProcStat } from '../../../../src/core/proc';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { ClientMessageSchema } from '../../../../src/core/protocol/messages';
import { JobRecord } from '../../../../src/core/store';
import { rssKiB } from '../../../faults/faultKit';
import { Sandbox, sleep, waitUntil } from './fixtures';

function open(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Writes, then resolves with everything the worker sent until it closed the connection. */
function exchange(path: string, payload: string | Buffer, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    let got = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`the worker kept the connection open; got ${got.slice(0, 200)}`));
    }, timeoutMs);
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    s.once('connect', () => s.write(payload));
  });
}

describe('control socket robustness', function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let job: JobRecord;
  let path: string;
  let token: string;
  const clients: WorkerClient[] = [];

  beforeEach(async () => {
    sb = new Sandbox();
    // Raw mode: random input is just bytes to `cat` (no ^C, no EOF handling).
    job = await sb.start(['sh', '-c', 'stty raw -echo; cat > /dev/null']);
    const exec = (await sb.store.read(job.id)).execution!;
    path = exec.socketPath;
    token = exec.socketToken;
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.dispose();
    sb.dispose();
  });

  async function assertHealthy(): Promise<void> {
    const rec = await sb.store.read(job.id);
    // (the fuzz loop sends valid `signal waiting` frames too)
    assert.ok(['running', 'waiting'].includes(rec.lifecycle.state), `the agent is still running (${rec.lifecycle.state})`);
    assert.equal(readProcStat(rec.execution!.pid)?.state !== undefined, true, 'the worker is alive');
    const c = await WorkerClient.connect(sb.store, job.id);
    clients.push(c);
    const ready = await c.attach({ cols: 80, rows: 24, readOnly: true });
    assert.equal(ready.type, 'ready');
    c.dispose();
  }

  it('closes a connection with a wrong token, and only that one', async () => {
    const got = await exchange(path, `${JSON.stringify({ type: 'hello', token: 'x'.repeat(48) })}\n`);
    assert.match(got, /wrong token/);
    const bad = await WorkerClient.connectToSocket(path, 'nope-nope-nope-nope');
    clients.push(bad);
    await assert.rejects(bad.attach({ cols: 80, rows: 24, readOnly: false }), /wrong token/);
    await assertHealthy();
  });

  it('the agent token may only hello and signal: attach, input, send, resize and stop are refused', async () => {
    // The agent writes its token where the test can read it (as a hostile agent could), and keeps
    // what it is typed in a file: refused input must never reach it.
    const agent = await sb.start(['sh', '-c', 'printf %s "$PADDOCK_AGENT_TOKEN" > agent-token; stty raw -echo; cat > typed']);
    const tokenFile = `${sb.cwd}/agent-token`;
    await waitUntil('the agent to write its token', () => existsSync(tokenFile) && readFileSync(tokenFile, 'utf8').length > 0);
    const agentToken = readFileSync(tokenFile, 'utf8');
    const exec = (await sb.store.read(agent.id)).execution!;
    assert.notEqual(agentToken, exec.socketToken);

    const refusedAttach = await exchange(exec.socketPath, `${JSON.stringify({ type: 'attach', token: agentToken, cols: 80, rows: 24, readOnly: false })}\n`);
    assert.match(refusedAttach, /this token may only signal/);
    assert.doesNotMatch(refusedAttach, /"type":"ready"/, 'no screen was sent');

    const s = await open(exec.socketPath);
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    const frame = (f: object) => s.write(`${JSON.stringify(f)}\n`);
    frame({ type: 'hello', token: agentToken });
    await waitUntil('the welcome', () => got.includes('"type":"welcome"'));
    assert.match(got, /"role":"agent"/);
    frame({ type: 'input', data: 'TYPED-BY-AGENT-TOKEN' });
    frame({ type: 'send', id: 2, text: 'SENT-BY-AGENT-TOKEN' });
    frame({ type: 'resize', cols: 33, rows: 11 });
    frame({ type: 'stop', id: 4, force: true });
    frame({ type: 'signal', id: 5, state: 'waiting' });
    await waitUntil('the signal to be acknowledged', () => got.includes('"type":"ack","id":5'));
    const answers = got.trim().split('\n').map((l) => JSON.parse(l) as { type: string; id?: number; message?: string });
    const refusals = answers.filter((a) => a.type === 'error');
    assert.equal(refusals.length, 4, `input, send, resize and stop are refused: ${got}`);
    assert.deepEqual(refusals.filter((a) => a.id !== undefined).map((a) => a.id).sort(), [2, 4]);
    assert.ok(!answers.some((a) => a.type === 'stopped' || (a.type === 'ack' && a.id !== 5)), got);
    s.destroy();

    // The agent still runs at its size, and only a viewer's input reaches it (typed after the refused ones).
    const viewer = await WorkerClient.connect(sb.store, agent.id);
    clients.push(viewer);
    await viewer.attach({ cols: 80, rows: 24, readOnly: false });
    viewer.input('FROM-VIEWER');
    const typed = `${sb.cwd}/typed`;
    await waitUntil('the viewer\'s input to reach the agent', () => existsSync(typed) && readFileSync(typed, 'utf8').includes('FROM-VIEWER'));
    assert.equal(readFileSync(typed, 'utf8'), 'FROM-VIEWER');
    const rec = await sb.store.read(agent.id);
    assert.ok(['running', 'waiting'].includes(rec.lifecycle.state), rec.lifecycle.state);
    assert.equal(rec.lifecycle.generation, agent.lifecycle.generation);
  });

  it('requires attach or hello first', async () => {
    const got = await exchange(path, `${JSON.stringify({ type: 'input', data: 'x' })}\n`);
    assert.match(got, /first frame must be attach or hello/);
    await assertHealthy();
  });

  it('survives malformed JSON, a 10 MB line, random bytes and early closes', async () => {
    assert.match(await exchange(path, '{"type": "hello", \n'), /malformed JSON/);
    assert.match(await exchange(path, `${JSON.stringify({ type: 'hello', token, extra: 1 })}\n`), /invalid message/);
    assert.match(await exchange(path, Buffer.alloc(10 * 1024 * 1024, 0x61)), /longer than/);
    // Random bytes hold a newline long before 64 KiB: the worker must answer the garbage and close.
    assert.match(await exchange(path, randomBytes(64 * 1024)), /"fatal":true/);
    for (let i = 0; i < 20; i++) {
      const s = await open(path);
      if (i % 2) s.write('{"type":"att');
      s.destroy();
    }
    // An authenticated viewer that sends garbage after attaching is dropped too.
    const s = await open(path);
    s.resume();
    s.write(`${JSON.stringify({ type: 'attach', token, cols: 80, rows: 24, readOnly: false })}\n`);
    s.write('not json\n');
    await new Promise((r) => s.on('close', r));
    await assertHealthy();
  });

  it('crashes nothing in a fuzz loop of 10,000 random frames', async () => {
    const frame = fc.oneof(
      { weight: 5, arbitrary: fc.record({ type: fc.constant('input'), data: fc.string({ maxLength: 40 }) }) },
      { weight: 2, arbitrary: fc.record({ type: fc.constant('resize'), cols: fc.integer({ min: -5, max: 1200 }), rows: fc.integer({ min: -5, max: 600 }) }) },
      { weight: 1, arbitrary: fc.record({ type: fc.constant('signal'), id: fc.nat(), state: fc.constantFrom('waiting', 'running', 'bogus') }) },
      { weight: 1, arbitrary: fc.record({ type: fc.constant('send'), id: fc.nat(), text: fc.string({ maxLength: 20 }) }) },
      { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('attach', 'hello', 'detach', 'nonsense') }) },
      { weight: 1, arbitrary: fc.anything() },
    );
    const lines = fc.sample(frame, { numRuns: 10_000, seed: 42 }).map((f) => {
      try {
        return JSON.stringify(f) ?? 'undefined';
      } catch {
        return '"unserializable"';
      }
    });
    // Frames the worker acts on are grouped until one that ends the connection (invalid, or
    // attach/hello/detach after authentication); each group goes over its own connection, so
    // every one of the 10,000 frames is really read and handled by the worker.
    const endsConnection = (line: string) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return true;
      }
      const parsed = ClientMessageSchema.safeParse(value);
      return !parsed.success || ['attach', 'hello', 'detach'].includes(parsed.data.type);
    };
    const groups: string[][] = [];
    for (let i = 0; i < lines.length; ) {
      const group: string[] = [];
      while (i < lines.length) {
        const line = lines[i++];
        group.push(line);
        if (endsConnection(line)) break;
      }
      groups.push(group);
    }
    let closedByWorker = 0;
    let keptOpen = 0;
    const runGroup = async (group: string[]) => {
      const s = await open(path);
      s.resume();
      s.on('error', () => undefined);
      const closed = new Promise((r) => s.on('close', r));
      s.write(`${JSON.stringify({ type: 'attach', token, cols: 80, rows: 24, readOnly: false })}\n${group.join('\n')}\n`);
      const workerMustClose = endsConnection(group[group.length - 1]);
      if (!workerMustClose) s.end();
      let timer: NodeJS.Timeout | undefined;
      const kept = new Promise((r) => (timer = setTimeout(() => r('kept'), 10_000)));
      const outcome = await Promise.race([closed, kept]);
      clearTimeout(timer);
      s.destroy();
      if (outcome === 'kept') keptOpen++;
      else if (workerMustClose) closedByWorker++;
    };
    // Eight connections at a time.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < groups.length) await runGroup(groups[next++]);
      }),
    );
    // Every connection ended by a frame the worker must refuse was closed by the worker itself.
    const mustClose = groups.filter((g) => endsConnection(g[g.length - 1])).length;
    assert.equal(keptOpen, 0, `${keptOpen} connection(s) were kept open by the worker`);
    assert.equal(closedByWorker, mustClose);
    await sleep(200);
    await assertHealthy();
  });

  it('a live viewer at low load gets every byte the agent printed, in order, without a resync', async () => {
    const lines = 20_000;
    const agent = await sb.start(['sh', '-c', `read go; seq 1 ${lines}; echo SEQ-DONE; sleep 600`]);
    const viewer = await WorkerClient.connect(sb.store, agent.id);
    clients.push(viewer);
    let text = '';
    let resyncs = 0;
    viewer.onDidOutput((d) => (text += d));
    viewer.onDidReady((r) => {
      if (r.resync) resyncs++;
    });
    await viewer.attach({ cols: 80, rows: 24, readOnly: false });
    await sleep(200);
    viewer.input('go\r');
    await waitUntil('the sequence to finish', () => text.includes('SEQ-DONE'), 60_000);
    assert.equal(resyncs, 0, 'a viewer that keeps up is never resynced');
    const printed = text.replace(/\r/g, '');
    const from = printed.indexOf('\n1\n2\n3\n');
    const expected = Array.from({ length: lines }, (_, i) => i + 1).join('\n');
    assert.ok(from >= 0, 'the sequence started');
    const got = printed.slice(from + 1, from + 1 + expected.length);
    // Compare compactly: the first differing position says which byte was lost.
    let differs = 0;
    while (differs < expected.length && got[differs] === expected[differs]) differs++;
    assert.equal(differs, expected.length, `the bytes differ from position ${differs}: ${JSON.stringify(got.slice(differs - 20, differs + 20))}`);
  });

  it('never stalls the agent for a viewer that stops reading; other viewers stay live', async () => {
    const bytes = 32 * 1024 * 1024;
    const flood = await sb.start(['sh', '-c', `read go; head -c ${bytes} /dev/zero | tr '\\0' 'x'; echo; echo FLOOD-DONE; sleep 600`]);
    // A stuck viewer: attaches, then never reads (its socket buffers fill up).
    const exec = (await sb.store.read(flood.id)).execution!;
    const stuck = await open(exec.socketPath);
    stuck.write(`${JSON.stringify({ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true })}\n`);
    stuck.pause();
    const live = await WorkerClient.connect(sb.store, flood.id);
    clients.push(live);
    let liveText = '';
    let liveBytes = 0;
    let liveResyncs = 0;
    live.onDidOutput((d) => {
      liveBytes += d.length;
      liveText = (liveText + d).slice(-100);
    });
    // A live viewer that falls behind too (this test process competes for the same 2 cores) is
    // resynced with a fresh screen rather than allowed to stall the agent: it stays live either way.
    live.onDidReady((r) => {
      if (!r.resync) return;
      liveResyncs++;
      liveText = (liveText + r.screen).slice(-4000);
    });
    await live.attach({ cols: 80, rows: 24, readOnly: false });
    await sleep(200);
    live.input('go\r');
    await waitUntil('the flood to finish (seen by the live viewer)', () => liveText.includes('FLOOD-DONE'), 60_000);
    assert.ok(liveBytes >= bytes || liveResyncs > 0, `the live viewer got every byte (${liveBytes}) or a fresh screen`);
    // The stuck viewer did not hold anything up; when it reads again it gets a fresh screen (or was dropped).
    stuck.resume();
    let got = '';
    stuck.on('data', (d) => (got = (got + d.toString()).slice(-2_000_000)));
    const closed = new Promise<boolean>((r) => stuck.on('close', () => r(true)));
    await Promise.race([waitUntil('a resync', () => got.includes('"resync":true'), 30_000), closed]);
    stuck.destroy();
    const rec = await sb.store.read(flood.id);
    assert.equal(rec.lifecycle.state, 'running');
  });

  it('keeps its memory bounded for a connection that sends frames and never reads the answers', async () => {
    const exec = (await sb.store.read(job.id)).execution!;
    await sleep(300);
    const before = rssKiB(exec.pid)!;
    // Any token may signal (the agent's own one too): each frame is answered with an ack nobody reads.
    const s = await open(exec.socketPath);
    s.pause();
    s.write(`${JSON.stringify({ type: 'hello', token: exec.socketToken })}\n`);
    let sent = 0;
    for (let batch = 0; batch < 600; batch++) {
      let frames = '';
      for (let i = 0; i < 1000; i++) frames += `${JSON.stringify({ type: 'signal', id: sent++, state: 'running' })}\n`;
      if (s.write(frames)) continue;
      // The worker stopped reading this socket: what the client sends waits on its side.
      const drained = await Promise.race([new Promise<boolean>((r) => s.once('drain', () => r(true))), sleep(2000).then(() => false)]);
      if (!drained) break;
    }
    const grown = rssKiB(exec.pid)! - before;
    assert.ok(grown < 40 * 1024, `the worker grew by ${grown} KiB for ${sent} frames`);
    s.destroy();
    await assertHealthy();
  });
});
