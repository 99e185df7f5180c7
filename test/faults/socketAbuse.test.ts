/**
 * Fault case 12 (the part the unit suite does not cover): 1,000 connections
 * opened and dropped — at once, half of them mid-frame, some authenticated —
 * leave the worker with the same open files, bounded memory and a live agent.
 * (Malformed JSON, a 10 MB line, binary garbage and a viewer that never reads
 * are in test/unit/core/worker/controlServer.test.ts.)
 */
import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createConnection, Socket } from 'node:net';
import { WorkerClient } from '../../src/core/protocol/client';
import { JobRecord } from '../../src/core/store';
import { Sandbox, sleep, waitUntil } from '../unit/core/worker/fixtures';
import { isAlive, rssKiB } from './faultKit';

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

describe('faults: 1,000 connections opened and dropped (case 12)', function () {
  this.timeout(120_000);
  let sb: Sandbox;
  let job: JobRecord;

  beforeEach(async () => {
    sb = new Sandbox();
    job = await sb.start(['sh', '-c', 'i=0; while :; do echo "tick $i"; i=$((i+1)); sleep 0.05; done']);
  });
  afterEach(() => sb.dispose());

  it('leaves no open files behind, memory bounded, the agent running and viewable', async () => {
    const exec = (await sb.store.read(job.id)).execution!;
    const pid = exec.pid;
    await sleep(500);
    const fdsBefore = fdCount(pid);
    const rssBefore = rssKiB(pid)!;
    // 20 waves of 50 at once (more at once overflows the listen backlog: connect fails with EAGAIN,
    // which is the kernel refusing, not the worker).
    for (let wave = 0; wave < 20; wave++) {
      const sockets = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          new Promise<Socket>((resolve, reject) => {
            const s = createConnection(exec.socketPath);
            s.once('connect', () => {
              if (i % 4 === 1) s.write('{"type":"attach","tok'); // mid-frame
              if (i % 4 === 2) s.write(`${JSON.stringify({ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true })}\n`);
              if (i % 4 === 3) s.write(`${JSON.stringify({ type: 'hello', token: exec.socketToken })}\n`);
              resolve(s);
            });
            s.once('error', reject);
          }),
        ),
      );
      await sleep(100);
      for (const s of sockets) s.destroy();
    }
    // A few files may legitimately open meanwhile (a new output segment, the timeline); a leak would be hundreds.
    await waitUntil('the worker to close every dropped connection', () => fdCount(pid) <= fdsBefore + 3, 20_000).catch(() => {
      throw new Error(`the worker holds ${fdCount(pid)} files, ${fdsBefore} before`);
    });
    assert.ok(isAlive(pid));
    const rssAfter = rssKiB(pid)!;
    assert.ok(rssAfter < rssBefore + 50 * 1024, `memory ${rssBefore} → ${rssAfter} KiB`);
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    const viewer = await WorkerClient.connect(sb.store, job.id);
    let seen = '';
    viewer.onDidOutput((d) => (seen += d));
    await viewer.attach({ cols: 80, rows: 24, readOnly: true });
    await waitUntil('live output', () => /tick \d+/.test(seen));
    viewer.dispose();
  });
});
