/**
 * The stop kept in the runtime directory while the store could not be written (bug 141, second review):
 * honoured only as the request this code writes for that exact worker, and gone once the end is recorded.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropStopRequest, keepStopRequest, stopRequested } from '../../../../src/core/store/stopRequest';
import type { JobRecord } from '../../../../src/core/store';
import { Sandbox } from '../worker/fixtures';

/** The parts of a record the request speaks of: the id, the generation and the execution's worker and socket. */
function recordAt(dir: string, over: { generation?: number; pid?: number; startTime?: number } = {}): JobRecord {
  return {
    id: 'abcd1234',
    lifecycle: { generation: over.generation ?? 1 },
    execution: { socketPath: join(dir, 'abc.sock'), pid: over.pid ?? 4242, startTime: over.startTime ?? 777 },
  } as unknown as JobRecord;
}

/** The path fd `fd` is open on, read before it is closed. */
function readlinkOf(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

describe('store/stopRequest (bug 141)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync('/tmp/pdk-req-');
    chmodSync(dir, 0o700);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('kept once, then said already kept; honoured for its own worker only', async () => {
    const job = recordAt(dir);
    assert.equal(await keepStopRequest(job), 'kept');
    assert.equal(await keepStopRequest(job), 'already');
    assert.equal(await stopRequested(job), true);
    const kept = JSON.parse(readFileSync(`${job.execution!.socketPath}.stop`, 'utf8')) as Record<string, unknown>;
    assert.deepEqual([kept.id, kept.generation, kept.workerPid, kept.workerStartTime], ['abcd1234', 1, 4242, 777]);
    // The same socket path, another worker (a reboot with a persistent runtime directory, a reused pid) or generation.
    assert.equal(await stopRequested(recordAt(dir, { pid: 4243 })), false);
    assert.equal(await stopRequested(recordAt(dir, { startTime: 778 })), false);
    assert.equal(await stopRequested(recordAt(dir, { generation: 2 })), false);
  });

  it('anything else at the path is no request: a folder, an empty file, another shape', async () => {
    const job = recordAt(dir);
    const file = `${job.execution!.socketPath}.stop`;
    mkdirSync(file);
    assert.equal(await stopRequested(job), false, 'a folder');
    assert.equal(await keepStopRequest(job), false, 'a folder is not written over');
    rmSync(file, { recursive: true });
    writeFileSync(file, '');
    assert.equal(await stopRequested(job), false, 'an empty file');
    writeFileSync(file, JSON.stringify({ id: 'abcd1234', generation: 1 }));
    assert.equal(await stopRequested(job), false, 'no worker named');
  });

  it('not in a runtime directory others can write in', async () => {
    const job = recordAt(dir);
    assert.equal(await keepStopRequest(job), 'kept');
    chmodSync(dir, 0o777);
    assert.equal(await stopRequested(job), false, 'another user may have planted it');
    assert.equal(await keepStopRequest(recordAt(dir, { generation: 2 })), false);
  });

  it('not said kept when its close fails (bug 167)', async function () {
    if (!existsSync('/proc/self/fd')) return this.skip();
    // A network file system (NFS) may report a failed write only at the close; none can be mounted here, so the
    // close of the request file itself is made to fail with EIO (after it really closed: nothing leaks).
    const job = recordAt(dir);
    const file = `${job.execution!.socketPath}.stop`;
    // The module object itself (an `import *` is a frozen copy): what the code under test calls through.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fsm = require('node:fs') as typeof import('node:fs');
    const realClose = fsm.close;
    let failed = 0;
    (fsm as { close: unknown }).close = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      const named = readlinkOf(fd);
      realClose(fd, (err) => (named === file && !err ? (failed++, cb(Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' }))) : cb(err)));
    };
    try {
      // Before: 'kept', the close's error dropped.
      assert.equal(await keepStopRequest(job), false);
    } finally {
      (fsm as { close: unknown }).close = realClose;
    }
    assert.equal(failed, 1, 'the request file was closed once, and that close failed');
    // Said unkept, it is not kept: a stop that then failed would leave nothing to drop it.
    assert.equal(await stopRequested(job), false);
    assert.ok(!existsSync(file));
  });

  it('dropped only when it is this worker’s', async () => {
    const job = recordAt(dir);
    await keepStopRequest(job);
    await dropStopRequest(recordAt(dir, { pid: 1 }));
    assert.ok(existsSync(`${job.execution!.socketPath}.stop`));
    await dropStopRequest(job);
    assert.ok(!existsSync(`${job.execution!.socketPath}.stop`));
  });

  it('gone once the worker records the end itself (a full disk for a moment)', async function () {
    this.timeout(30_000);
    const s = new Sandbox();
    try {
      const job = await s.start(['sh', '-c', 'exec sleep 600'], { waitFor: ['running'] });
      const stored = await s.store.readStored(job.id);
      assert.equal(await keepStopRequest(stored), 'kept');
      process.kill(stored.execution!.pid, 'SIGTERM');
      const ended = await s.waitForState(job.id, ['cancelled']);
      assert.equal(ended.lifecycle.state, 'cancelled');
      // Removed right after the record's write lands (asynchronously: the record may be read a moment before).
      const deadline = Date.now() + 5000;
      while (existsSync(`${stored.execution!.socketPath}.stop`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(!existsSync(`${stored.execution!.socketPath}.stop`), 'the worker recorded its stop: the request is done with');
    } finally {
      s.dispose();
    }
  });
});
