/**
 * A closing connection's socket (endAfterWrites.ts), on a real Unix socket: the destroy comes once
 * everything written is with the OS, or once the client has read nothing for the stall bound; never
 * a fixed time after the end (a reader a second behind lost its answer, bug 173).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { endAfterWrites } from '../../../../src/core/worker/endAfterWrites';
import { sleep } from './fixtures';

const PAYLOAD = Buffer.alloc(3 * 1024 * 1024, 'x');

describe('endAfterWrites: a closing socket keeps what it owes a reader that reads', function () {
  this.timeout(30_000);
  let dir: string;
  let server: Server;

  beforeEach(() => {
    dir = mkdtempSync('/tmp/pdk-eaw-');
  });
  afterEach(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A server that writes 3 MB and a last line to each client in 64 KB writes, then ends through endAfterWrites. */
  function listen(stallMs: number, onClosed: (at: number) => void, hideQueue = false): Promise<string> {
    const path = join(dir, 's');
    server = createServer({ allowHalfOpen: true }, (sock: Socket) => {
      sock.on('error', () => undefined);
      for (let at = 0; at < PAYLOAD.length; at += 64 * 1024) sock.write(PAYLOAD.subarray(at, at + 64 * 1024));
      sock.write('THE ANSWER\n');
      // A Node without libuv's private field (endAfterWrites.ts falls back to `writableLength` alone).
      if (hideQueue) Object.defineProperty((sock as unknown as { _handle: object })._handle, 'writeQueueSize', { get: () => undefined });
      sock.on('close', () => onClosed(Date.now()));
      endAfterWrites(sock, stallMs, () => sock.destroy());
    });
    return new Promise((resolve) => server.listen(path, () => resolve(path)));
  }

  /** Connects reading nothing; `read(sock)` decides when it reads. Resolves with the bytes got until the close. */
  function client(path: string, read: (s: Socket) => void): Promise<number> {
    return new Promise((resolve) => {
      const s = createConnection({ path, allowHalfOpen: true });
      let got = 0;
      let tail = '';
      s.pause();
      s.on('data', (d: Buffer) => {
        got += d.length;
        tail = (tail + d.toString('latin1')).slice(-20);
      });
      s.on('error', () => undefined);
      s.on('end', () => s.end());
      s.on('close', () => resolve(tail.endsWith('THE ANSWER\n') ? got : -got));
      s.once('connect', () => read(s));
    });
  }

  it('a reader that starts 2 s late gets every byte and the last line', async () => {
    const path = await listen(5000, () => undefined);
    const got = await client(path, (s) => setTimeout(() => s.resume(), 2000));
    assert.equal(got, PAYLOAD.length + 11, `got ${Math.abs(got)} bytes, the last line ${got > 0 ? 'came' : 'lost'}`);
  });

  it('a reader that reads one piece every 150 ms, longer in all than the stall bound, gets every byte', async () => {
    const path = await listen(1000, () => undefined);
    const started = Date.now();
    const got = await client(path, (s) => {
      const timer = setInterval(() => {
        s.once('data', () => s.pause());
        s.resume();
      }, 150);
      s.on('close', () => clearInterval(timer));
    });
    assert.equal(got, PAYLOAD.length + 11, `got ${Math.abs(got)} bytes in ${Date.now() - started} ms`);
    assert.ok(Date.now() - started > 2000, `the reading took ${Date.now() - started} ms, not longer than the stall bound`);
  });

  it('without libuv\'s write queue size: a reader that takes everything within the stall bound gets every byte', async () => {
    const path = await listen(5000, () => undefined, true);
    const got = await client(path, (s) => setTimeout(() => s.resume(), 2000));
    assert.equal(got, PAYLOAD.length + 11, `got ${Math.abs(got)} bytes, the last line ${got > 0 ? 'came' : 'lost'}`);
  });

  it('without libuv\'s write queue size: a steady reader slower than all queued per stall bound counts as stuck (the stated limit)', async () => {
    const path = await listen(1000, () => undefined, true);
    const got = await client(path, (s) => {
      const timer = setInterval(() => {
        s.once('data', () => s.pause());
        s.resume();
      }, 150);
      s.on('close', () => clearInterval(timer));
    });
    assert.ok(got < 0, `got every byte and the last line (${got}): the comment's limit no longer holds`);
  });

  it('a client that never reads is destroyed once it has read nothing for the stall bound', async () => {
    let closedAt = 0;
    const path = await listen(1000, (at) => (closedAt = at));
    const s = createConnection({ path, allowHalfOpen: true });
    s.pause();
    s.on('error', () => undefined);
    const started = Date.now();
    try {
      for (let i = 0; i < 100 && !closedAt; i++) await sleep(50);
      assert.ok(closedAt > 0, 'the socket was destroyed within 5 s');
      assert.ok(closedAt - started >= 900, `destroyed after ${closedAt - started} ms, before the stall bound`);
    } finally {
      s.destroy();
    }
  });
});
