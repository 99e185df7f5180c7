/**
 * Bug 203, a variant: a `refresh` that arrives while a lagging viewer's resync screen is being taken. The resync is
 * the worker's own (its socket drained), so nothing waited for it; the refresh only asked for the screen to be taken
 * again, so it was owed nothing either, and a `detach` right after closed the connection with no screen at all.
 *
 * A real Connection on a real socket; the session is a stand-in whose screen takes 300 ms, so the refresh lands
 * inside the resync every time (with a real worker that window is a few milliseconds of a busy mirror).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, ConnectionHost } from '../../../../src/core/worker/connection';
import { DEFAULT_LIMITS } from '../../../../src/core/worker/connectionLimits';
import { OutputBatch } from '../../../../src/core/worker/outputBatch';
import { sleep, waitUntil } from './fixtures';

describe('a refresh while a lagging viewer is being resynced (bug 203)', function () {
  this.timeout(30_000);
  let dir: string;
  let server: Server | undefined;
  let client: Socket | undefined;
  let conn: Connection | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'paddock-refresh-'))));
  afterEach(() => {
    client?.destroy();
    conn?.close();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is answered: a refresh then a detach during the resync gets a fresh screen before the close', async () => {
    let snapshotMs = 0;
    const host = {
      session: { state: 'running', exit: undefined, snapshot: () => sleep(snapshotMs).then(() => ({ screen: 'SCREEN', cols: 80, rows: 24 })) },
      limits: DEFAULT_LIMITS,
      authenticate: () => 'control' as const,
      flushOutput: () => undefined,
      markActive: () => undefined,
      detached: () => undefined,
      log: () => undefined,
    } as unknown as ConnectionHost;
    const path = join(dir, 's.sock');
    server = createServer((s) => (conn = new Connection(s, host)));
    await new Promise<void>((r) => server!.listen(path, () => r()));
    const c = (client = createConnection({ path, allowHalfOpen: true }));
    c.on('error', () => undefined);
    let got = '';
    c.on('data', (d) => (got += d.toString('latin1')));
    const ended = new Promise<void>((r) => c.on('end', () => r()));
    c.write(`${JSON.stringify({ type: 'attach', token: 't', cols: 80, rows: 24, readOnly: true })}\n`);
    await waitUntil('the first screen', () => got.includes('"type":"ready"'));
    const stream = () => (conn as unknown as { stream: string }).stream;
    // The agent floods while the viewer reads nothing: it falls behind.
    c.pause();
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    for (let i = 0; i < 400 && stream() !== 'lagging'; i++) {
      conn!.deliverOutput(new OutputBatch([chunk], chunk.length));
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(stream(), 'lagging');
    snapshotMs = 300;
    const before = got.length;
    c.resume();
    await waitUntil('the resync to start (the socket drained)', () => stream() === 'syncing');
    c.write(`${JSON.stringify({ type: 'refresh' })}\n${JSON.stringify({ type: 'detach' })}\n`);
    await Promise.race([ended, sleep(10_000)]);
    const readies = got.slice(before).split('\n').filter((l) => l.startsWith('{"type":"ready"'));
    assert.ok(readies.length >= 1, 'a fresh screen came before the close');
    assert.match(readies[readies.length - 1], /"resync":true/);
  });
});
