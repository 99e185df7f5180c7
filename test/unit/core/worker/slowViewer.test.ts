/**
 * Bug 203: a viewer that reads, but slowly (a terminal over a slow link), while the agent floods. The worker let its
 * socket queue 8 MiB before it stopped sending output, which such a viewer then read for minutes (at 5 KB/s, ~28 min),
 * behind the agent all along, and it was dropped 30 s in (its fatal error queued behind the 8 MiB) instead of being
 * redrawn. Now a viewer's socket holds about what it takes in a second, and a slow one gets a fresh screen once it
 * has caught up; the agent never waits for it.
 */
import * as assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { useWorkerSandbox, waitUntil } from './fixtures';

interface Frame {
  type: string;
  resync?: boolean;
  screen?: string;
  fatal?: boolean;
  message?: string;
}

describe('a viewer that reads slowly while the agent floods (bug 203)', function () {
  this.timeout(240_000);
  const ctx = useWorkerSandbox();

  async function floodWithSlowViewer(bytesPerTick: number, redrawWithinMs: number): Promise<void> {
    const { sb } = ctx;
    const bytes = 16 * 1024 * 1024;
    const job = await sb.start(['sh', '-c', `read go; head -c ${bytes} /dev/zero | tr '\\0' 'x'; echo; echo FLOOD-DONE; sleep 600`], { waitFor: ['running'] });
    const exec = (await sb.store.read(job.id)).execution!;
    // The slow viewer: takes `bytesPerTick` every 100 ms, as a terminal behind a slow link does.
    const slow = createConnection(exec.socketPath);
    const frames: Frame[] = [];
    let partial = '';
    slow.on('error', () => undefined);
    let closed = false;
    slow.on('close', () => (closed = true));
    await new Promise<void>((r) => slow.once('connect', () => r()));
    slow.pause();
    slow.write(`${JSON.stringify({ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true })}\n`);
    const reader = setInterval(() => {
      const chunk = slow.readableLength > 0 ? (slow.read(Math.min(bytesPerTick, slow.readableLength)) as Buffer | null) : null;
      if (!chunk) return;
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const l of lines) frames.push(JSON.parse(l) as Frame);
    }, 100);
    try {
      const typist = await WorkerClient.connect(sb.store, job.id);
      ctx.clients.push(typist);
      let tail = '';
      typist.onDidOutput((d) => (tail = (tail + d).slice(-200)));
      typist.onDidReady((r) => (tail = (tail + r.screen).slice(-4000)));
      await typist.attach({ cols: 80, rows: 24, readOnly: false });
      typist.input('go\r');
      await waitUntil('the flood to end (seen by a viewer that keeps up)', () => tail.includes('FLOOD-DONE'), 60_000);
      const doneAt = Date.now();
      // Before: the slow viewer had 8 MiB queued, ~7 minutes at 20 KB/s, and was dropped 30 s in.
      await waitUntil(
        'a fresh screen with the flood\'s end on the slow viewer',
        () => frames.some((f) => f.type === 'ready' && f.resync === true && (f.screen ?? '').includes('FLOOD-DONE')),
        redrawWithinMs,
      ).catch((err: Error) => {
        const kinds = frames.map((f) => (f.type === 'ready' ? `ready${f.resync ? '(resync)' : ''}` : f.type));
        throw new Error(`${err.message} (${Date.now() - doneAt} ms after it; the slow viewer got ${frames.length} frames: …${kinds.slice(-5).join(', ')})`);
      });
      assert.equal(frames.filter((f) => f.fatal).length, 0, 'the slow viewer is not dropped');
      assert.equal(closed, false, 'the slow viewer keeps its connection');
      assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    } finally {
      clearInterval(reader);
      slow.destroy();
    }
  }

  it('is redrawn with the agent\'s current screen within seconds, not minutes, and is never dropped; the agent does not wait', async () => {
    await floodWithSlowViewer(2048, 45_000); // 20 KB/s
  });

  it('one reading 5 KB/s, which needs over 30 s to take what its socket holds, is redrawn, not dropped', async () => {
    // What the kernel and the worker hold takes it about a minute: dropped before at 30 s of lagging, read or not.
    await floodWithSlowViewer(512, 150_000);
  });
});
