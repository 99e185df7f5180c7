/**
 * Fault case 23: protocol fuzzing. 100,000 frames — random JSON values, valid
 * frames mutated byte by byte (flips, truncation, splices, duplicated keys,
 * type swaps), and raw binary — sent to a real worker, before and after
 * authentication, 8 connections at a time. Every connection must end (no
 * hang), the worker and its agent must keep running, memory stays bounded,
 * and afterwards a normal viewer still attaches and types.
 * Deterministic: fast-check with a fixed seed.
 */
import * as assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import * as fc from 'fast-check';
import { WorkerClient } from '../../src/core/protocol/client';
import { ClientMessageSchema } from '../../src/core/protocol/messages';
import { JobRecord } from '../../src/core/store';
import { Sandbox, sleep, waitUntil } from '../unit/core/worker/fixtures';
import { isAlive, rssKiB } from './faultKit';

const TOTAL_FRAMES = 100_000;
const CONNECTION_TIMEOUT_MS = 30_000;

/** Valid frames the mutations start from (never `stop`: a valid stop would rightly end the agent). */
const BASES = [
  { type: 'input', data: 'hello' },
  { type: 'resize', cols: 100, rows: 30 },
  { type: 'send', id: 7, text: 'hi' },
  { type: 'signal', id: 3, state: 'running' },
  { type: 'detach' },
  { type: 'hello', token: 'TOKEN' },
  { type: 'attach', token: 'TOKEN', cols: 80, rows: 24, readOnly: false },
];

/** A small seeded generator (mulberry32): the same frames on every run. */
class Rng {
  constructor(private state: number) {}
  /** Integer in [min, max]. */
  nextInt(min: number, max: number): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return min + Math.floor(unit * (max - min + 1));
  }
}

function mutate(rng: Rng, text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  switch (rng.nextInt(0, 7)) {
    case 0: // flip bytes
      for (let i = 0; i < rng.nextInt(1, 4); i++) bytes[rng.nextInt(0, bytes.length - 1)] ^= 1 << rng.nextInt(0, 7);
      return bytes.toString('latin1');
    case 1: // truncate
      return text.slice(0, rng.nextInt(0, text.length - 1));
    case 2: // splice another frame into the middle
      return text.slice(0, rng.nextInt(0, text.length)) + JSON.stringify(BASES[rng.nextInt(0, BASES.length - 1)]);
    case 3: // swap a value's type
      return text.replace(/:(\d+|"[^"]*"|true|false)/, [':null', ':[]', ':{}', ':-1', ':1e400', ':"x"', ':9007199254740993'][rng.nextInt(0, 6)]);
    case 4: // duplicate or unknown keys
      return text.replace(/^\{/, ['{"type":"stop",', '{"__proto__":{"x":1},', '{"extra":1,', '{"constructor":{},'][rng.nextInt(0, 3)]);
    case 5: // nest deeply
      return '['.repeat(rng.nextInt(1, 5000)) + text;
    case 6: // unicode and control characters
      return text.replace(/"([a-z]+)"/, `"$1\u0000\u2028\ud800"`);
    default: // raw binary (no newline: it would just split into more frames)
      return Buffer.from(Array.from({ length: rng.nextInt(1, 200) }, () => rng.nextInt(0, 255)).filter((b) => b !== 10)).toString('latin1');
  }
}

function isValidStop(line: string): boolean {
  try {
    const parsed = ClientMessageSchema.safeParse(JSON.parse(line));
    return parsed.success && parsed.data.type === 'stop';
  } catch {
    return false;
  }
}

function endsConnection(line: string): boolean {
  try {
    const parsed = ClientMessageSchema.safeParse(JSON.parse(line));
    return !parsed.success || ['attach', 'hello', 'detach'].includes(parsed.data.type);
  } catch {
    return true;
  }
}

describe('faults: protocol fuzzing (case 23)', function () {
  this.timeout(600_000);
  let sb: Sandbox;
  let job: JobRecord;
  const clients: WorkerClient[] = [];

  beforeEach(async () => {
    sb = new Sandbox();
    job = await sb.start(['sh', '-c', 'stty raw -echo; cat > /dev/null']);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.dispose();
    sb.dispose();
  });

  it(`${TOTAL_FRAMES.toLocaleString('en')} random and mutated frames: no crash, no hang, memory bounded`, async () => {
    const exec = (await sb.store.read(job.id)).execution!;
    const { socketPath, socketToken, pid: workerPid } = exec;
    const rng = new Rng(20261202);
    // (1) Well-formed frames the worker acts on (random text, sizes, requests): they keep a connection
    // open, so they travel ~1,000 per connection. (2) Mutated, random and binary frames: each ends its
    // connection, so each gets its own — half as the first frame, half after a valid attach.
    const acting = fc.oneof(
      { weight: 6, arbitrary: fc.record({ type: fc.constant('input'), data: fc.string({ maxLength: 200, unit: 'binary' }) }) },
      { weight: 2, arbitrary: fc.record({ type: fc.constant('resize'), cols: fc.integer({ min: 2, max: 300 }), rows: fc.integer({ min: 2, max: 120 }) }) },
      { weight: 1, arbitrary: fc.record({ type: fc.constant('send'), id: fc.nat(), text: fc.string({ maxLength: 100, unit: 'grapheme' }) }) },
      { weight: 1, arbitrary: fc.record({ type: fc.constant('signal'), id: fc.nat(), state: fc.constantFrom('waiting', 'running') }) },
    );
    const MUTATED = 12_000;
    const actingLines = fc.sample(acting, { numRuns: TOTAL_FRAMES - MUTATED, seed: 23 }).map((f) => JSON.stringify(f));
    const anything = fc.sample(fc.anything({ maxDepth: 3 }), { numRuns: 2_000, seed: 7 });
    const broken: string[] = [];
    while (broken.length < MUTATED) {
      let line: string;
      if (rng.nextInt(0, 4) === 0) {
        try {
          line = JSON.stringify(anything[broken.length % anything.length]) ?? 'undefined';
        } catch {
          line = '"unserializable"';
        }
      } else {
        const base = JSON.stringify(BASES[rng.nextInt(0, BASES.length - 1)]).replace('TOKEN', rng.nextInt(0, 3) === 0 ? socketToken : 'not-the-token');
        line = mutate(rng, base);
      }
      if (line.includes('\n') || isValidStop(line) || !endsConnection(line)) continue;
      broken.push(line);
    }
    // `rawLast`: the last frame is a byte string (flipped bytes, raw binary) sent as those bytes;
    // every other frame is JSON text sent as UTF-8, as a client sends it.
    type Group = { auth: boolean; frames: string[]; rawLast: boolean };
    const groups: Group[] = [];
    for (let i = 0; i < actingLines.length; i += 1000) groups.push({ auth: true, frames: actingLines.slice(i, i + 1000), rawLast: false });
    broken.forEach((line, i) => groups.push({ auth: i % 2 === 0, frames: i % 4 === 0 ? [actingLines[i], line] : [line], rawLast: true }));
    // Interleave the kinds so long and short connections overlap.
    for (let i = groups.length - 1; i > 0; i--) {
      const j = rng.nextInt(0, i);
      [groups[i], groups[j]] = [groups[j], groups[i]];
    }
    const frameCount = groups.reduce((n, g) => n + g.frames.length, 0);

    const rssBefore = rssKiB(workerPid)!;
    let hung = 0;
    const hungExamples: string[] = [];
    // What the worker answered: every `signal` frame it reads is acknowledged at once, so the acks
    // prove each frame was really read and handled; a connection that never authenticated gets none.
    let signalsSent = 0;
    let signalsAcked = 0;
    let acksWithoutAuth = 0;
    const missedExamples: string[] = [];
    const signalIds = (frames: string[]) =>
      frames.flatMap((line) => {
        try {
          const parsed = ClientMessageSchema.safeParse(JSON.parse(line));
          return parsed.success && parsed.data.type === 'signal' ? [parsed.data.id] : [];
        } catch {
          return [];
        }
      });
    const tally = (g: Group, received: string) => {
      const acked = new Map<number, number>();
      for (const line of received.split('\n')) {
        if (!line.startsWith('{"type":"ack"')) continue;
        const { id } = JSON.parse(line) as { id: number };
        acked.set(id, (acked.get(id) ?? 0) + 1);
      }
      if (!g.auth) {
        acksWithoutAuth += [...acked.values()].reduce((a, b) => a + b, 0);
        return;
      }
      for (const id of signalIds(g.frames)) {
        signalsSent++;
        const left = acked.get(id) ?? 0;
        if (left > 0) {
          signalsAcked++;
          acked.set(id, left - 1);
        } else if (missedExamples.length < 5) missedExamples.push(`signal ${id} in a group of ${g.frames.length}`);
      }
    };
    const runGroup = (g: Group) =>
      new Promise<void>((resolve) => {
        const s = createConnection(socketPath);
        s.on('error', () => undefined);
        let received = '';
        s.setEncoding('utf8');
        // We hang up once the worker has answered each signal of the group (when a client hangs up,
        // the worker drops the answers it has not sent yet, as it may).
        const pending = new Map<number, number>();
        for (const id of g.auth ? signalIds(g.frames) : []) pending.set(id, (pending.get(id) ?? 0) + 1);
        let unanswered = [...pending.values()].reduce((a, b) => a + b, 0);
        let hungUp = false;
        let partial = '';
        const hangUpWhenAnswered = () => {
          if (!hungUp && unanswered === 0) {
            hungUp = true;
            s.end();
          }
        };
        s.on('data', (d: string) => {
          received += d;
          const lines = (partial + d).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.startsWith('{"type":"ack"')) continue;
            const { id } = JSON.parse(line) as { id: number };
            const left = pending.get(id) ?? 0;
            if (left > 0) {
              pending.set(id, left - 1);
              unanswered--;
            }
          }
          hangUpWhenAnswered();
        });
        const timer = setTimeout(() => {
          hung++;
          if (hungExamples.length < 5) hungExamples.push(`${g.auth ? 'after attach' : 'first'}: ${g.frames.length} frames, last ${JSON.stringify(g.frames[g.frames.length - 1].slice(0, 120))}`);
          s.destroy();
        }, CONNECTION_TIMEOUT_MS);
        s.on('close', () => {
          clearTimeout(timer);
          tally(g, received);
          resolve();
        });
        s.once('connect', () => {
          const head = g.auth ? `${JSON.stringify({ type: 'attach', token: socketToken, cols: 80, rows: 24, readOnly: false })}\n` : '';
          const text = g.rawLast ? g.frames.slice(0, -1) : g.frames;
          s.write(Buffer.concat([
            Buffer.from(`${head}${text.map((f) => `${f}\n`).join('')}`, 'utf8'),
            g.rawLast ? Buffer.from(`${g.frames[g.frames.length - 1]}\n`, 'latin1') : Buffer.alloc(0),
          ]));
          // We hang up (half-close) once answered and expect the worker to close its side too.
          hangUpWhenAnswered();
        });
      });
    // Four rounds; memory is sampled after each. The mirror's buffer legitimately grows with the largest
    // size a viewer asked for (cols × scrollback), so "bounded" means: it stops growing.
    const rss: number[] = [];
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round++) {
      const slice = groups.slice(Math.floor((round * groups.length) / ROUNDS), Math.floor(((round + 1) * groups.length) / ROUNDS));
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < slice.length) await runGroup(slice[next++]);
        }),
      );
      await sleep(300);
      rss.push(rssKiB(workerPid) ?? NaN);
    }
    assert.equal(hung, 0, `${hung} connections were left open by the worker, e.g. ${hungExamples.join('; ')}`);
    assert.ok(signalsSent > 5_000, `${signalsSent} signal frames went to authenticated connections`);
    assert.equal(signalsAcked, signalsSent, `the worker acknowledged ${signalsAcked} of ${signalsSent} signal frames, e.g. missed ${missedExamples.join('; ')}`);
    assert.equal(acksWithoutAuth, 0, 'a connection that never authenticated got an answer to a request');

    await sleep(500);
    assert.ok(isAlive(workerPid), 'the worker survived');
    const rec = await sb.store.read(job.id);
    assert.ok(['running', 'waiting'].includes(rec.lifecycle.state), `the agent is still live (${rec.lifecycle.state})`);
    assert.equal(rec.execution?.pid, workerPid);
    const rssAfter = rss[ROUNDS - 1];
    // Against the highest of the rounds before, not the first two only: how far the first rounds
    // grow the mirror depends on which sizes the eight connections' timing let through first
    // (measured on the code before and after 2026-12-06's changes alike: 134–172 MB after round 2,
    // 178–204 MB after round 4), and once 190 MB passed the first two's bound by 20 KiB.
    assert.ok(rssAfter <= Math.max(...rss.slice(0, ROUNDS - 1)) * 1.3, `worker memory keeps growing: ${rssBefore} → ${rss.join(' → ')} KiB`);
    assert.ok(rssAfter < 400 * 1024, `worker memory ${rssAfter} KiB`);

    // A person can still attach and type: the agent echoes again once told to.
    const viewer = await WorkerClient.connect(sb.store, job.id);
    clients.push(viewer);
    const ready = await viewer.attach({ cols: 80, rows: 24, readOnly: false });
    assert.equal(ready.type, 'ready');
    viewer.resize(90, 20);
    await waitUntil('the resize to reach the worker', async () => {
      const again = await WorkerClient.connect(sb.store, job.id);
      clients.push(again);
      const r = await again.attach({ cols: 90, rows: 20, readOnly: true });
      again.dispose();
      return r.cols === 90 && r.rows === 20;
    });
    console.log(`      ${frameCount} frames over ${groups.length} connections, ${signalsAcked} signals acknowledged, worker RSS ${rssBefore} → ${rss.join(' → ')} KiB`);
  });
});
