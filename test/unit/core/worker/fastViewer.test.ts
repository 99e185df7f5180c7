/**
 * A guard, from a withdrawn attempt (2026-12-08): a rule meant to redraw a slow viewer sooner (its socket holding about
 * what it took in the last second) judged a viewer the first time its queue passed 128 KiB, with no history, and
 * measured a burst after a quiet spell by what the agent offered: a viewer reading 25 MB/s was resynced in 6 of 10
 * runs of a 4 MB burst, and an idle agent printing 1 MB to one reading ~3 MB/s resynced it (the fixed 8 MiB never
 * does). A resync drops output the viewer would have shown. Whatever bounds a slow viewer must pass these.
 */
import * as assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { sleep, useWorkerSandbox, waitUntil } from './fixtures';

describe('a fast viewer is never resynced', function () {
  this.timeout(120_000);
  const ctx = useWorkerSandbox();

  /** The agent is quiet for 2 s, then prints `bytes` at once; the viewer takes `perTick` every 10 ms. */
  async function burstAfterQuiet(bytes: number, perTick: number): Promise<void> {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', `read go; head -c ${bytes} /dev/zero | tr '\\0' 'x'; echo; echo BURST-DONE; sleep 600`], { waitFor: ['running'] });
    const typist = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(typist);
    await typist.attach({ cols: 80, rows: 24, readOnly: false });
    const exec = (await sb.store.read(job.id)).execution!;
    const viewer = createConnection(exec.socketPath);
    viewer.on('error', () => undefined);
    await new Promise<void>((r) => viewer.once('connect', () => r()));
    viewer.pause();
    viewer.write(`${JSON.stringify({ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true })}\n`);
    let [partial, got, readies, done] = ['', 0, 0, false];
    const reader = setInterval(() => {
      const chunk = viewer.readableLength > 0 ? (viewer.read(Math.min(perTick, viewer.readableLength)) as Buffer | null) : null;
      if (!chunk) return;
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const l of lines) {
        const f = JSON.parse(l) as { type: string; data?: string; screen?: string };
        if (f.type === 'output') got += f.data!.length;
        if (f.type === 'ready') readies++;
        if ((f.data ?? f.screen ?? '').includes('BURST-DONE')) done = true;
      }
    }, 10);
    try {
      await sleep(2000);
      typist.input('go\r');
      await waitUntil('the burst\'s end on the viewer', () => done, 60_000);
      assert.equal(readies, 1, `the viewer was resynced (${readies - 1} times); it got ${got} of ${bytes} bytes of output`);
      assert.ok(got >= bytes, `every byte of the burst reached the viewer: ${got} of ${bytes}`);
    } finally {
      clearInterval(reader);
      viewer.destroy();
    }
  }

  it('an idle agent printing 1 MB to a viewer taking ~3 MB/s: every byte, no resync', async () => {
    await burstAfterQuiet(1_000_000, 32 * 1024);
  });

  it('a 4 MB burst after a quiet spell to a viewer taking ~25 MB/s: every byte, no resync', async () => {
    await burstAfterQuiet(4_000_000, 256 * 1024);
  });
});
