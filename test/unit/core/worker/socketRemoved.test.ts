/**
 * A running worker whose socket file is removed from under it: logind removes
 * `$XDG_RUNTIME_DIR` at the person's last logout while agents go on running,
 * and tmp cleaners age out `/tmp`. Before the fix the agent stayed "running"
 * and could never be attached, sent to or read again (ENOENT on every connect).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { WORKER_LOG_FILE } from '../../../../src/core/worker/spawn';
import { ForeignSocket, foreignSocket, readAll } from './foreignSocket';
import { sleep, useWorkerSandbox, waitUntil } from './fixtures';

describe('worker socket removed from under it', function () {
  this.timeout(60_000);
  const use = useWorkerSandbox();
  const { clients } = use;

  async function screenOf(id: string): Promise<string> {
    const c = await WorkerClient.connect(use.sb.store, id);
    clients.push(c);
    const ready = await c.attach({ cols: 80, rows: 24, readOnly: true });
    assert.equal(ready.type, 'ready');
    c.dispose();
    return JSON.stringify(ready);
  }

  for (const removed of ['the socket file', 'the whole runtime dir'] as const) {
    it(`listens again after ${removed} is removed, and open connections go on`, async () => {
      const job = await use.sb.start(['sh', '-c', 'echo marker-$((6*7)); exec cat']);
      const path = (await use.sb.store.read(job.id)).execution!.socketPath;
      await waitUntil('the marker on screen', async () => (await screenOf(job.id)).includes('marker-42'));
      const viewer = await WorkerClient.connect(use.sb.store, job.id);
      clients.push(viewer);
      await viewer.attach({ cols: 80, rows: 24, readOnly: false });
      let seen = '';
      viewer.onDidOutput((d) => (seen += d));

      rmSync(removed === 'the socket file' ? path : dirname(path), { recursive: true, force: true });
      assert.equal(existsSync(path), false);

      await waitUntil('the socket made again', () => existsSync(path) && lstatSync(path).isSocket());
      assert.equal(lstatSync(dirname(path)).mode & 0o777, 0o700, 'the runtime dir is made private again');
      assert.match(await screenOf(job.id), /marker-42/, 'a new viewer attaches');
      viewer.input('still-here\r');
      await waitUntil('the echo on the open connection', () => seen.includes('still-here'));
      assert.equal((await use.sb.store.read(job.id)).lifecycle.state, 'running');
    });
  }

  // Bug 79: a file put in the socket's place was left alone: the agent could not be reached again,
  // and every client said its worker had exited.
  const replacements: [string, (path: string) => void][] = [
    ['a regular file', (path) => writeFileSync(path, 'junk')],
    ['a symbolic link', (path) => symlinkSync('/nonexistent-paddock-target', path)],
  ];
  for (const [what, put] of replacements) {
    it(`listens again after the socket file is replaced by ${what}`, async () => {
      const job = await use.sb.start(['sh', '-c', 'echo marker-$((6*7)); exec cat']);
      const path = (await use.sb.store.read(job.id)).execution!.socketPath;
      await waitUntil('the marker on screen', async () => (await screenOf(job.id)).includes('marker-42'));
      rmSync(path);
      put(path);
      await waitUntil('the socket made again', () => lstatSync(path).isSocket(), 15_000);
      assert.match(await screenOf(job.id), /marker-42/, 'a new viewer attaches');
      assert.equal((await use.sb.store.read(job.id)).lifecycle.state, 'running');
    });
  }

  it('leaves a directory put in the socket\'s place alone, and says so once', async () => {
    const job = await use.sb.start(['sh', '-c', 'exec cat']);
    const path = (await use.sb.store.read(job.id)).execution!.socketPath;
    await waitUntil('the worker listening', async () => (await screenOf(job.id)).length > 0);
    rmSync(path);
    mkdirSync(path);
    writeFileSync(`${path}/kept`, 'someone\'s');
    const log = join(use.sb.store.jobDir(job.id), WORKER_LOG_FILE);
    await waitUntil('the worker saying so', () => readFileSync(log, 'utf8').includes('replaced by a directory'), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 4500));
    assert.equal(readFileSync(log, 'utf8').split('replaced by a directory').length, 2, 'said once');
    assert.equal(readFileSync(`${path}/kept`, 'utf8'), 'someone\'s');
    rmSync(path, { recursive: true });
    await waitUntil('the socket made again once the directory is gone', () => existsSync(path) && lstatSync(path).isSocket(), 15_000);
  });

  it('listens again after the socket file is replaced by a dead socket (its process killed)', async () => {
    // A guard (it passes before the fix too): the one socket at the path that may be replaced.
    const job = await use.sb.start(['sh', '-c', 'echo marker-$((6*7)); exec cat']);
    const path = (await use.sb.store.read(job.id)).execution!.socketPath;
    await waitUntil('the marker on screen', async () => (await screenOf(job.id)).includes('marker-42'));
    rmSync(path);
    const dead = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`]);
    await new Promise((resolve) => dead.stdout.once('data', resolve));
    dead.kill('SIGKILL');
    await new Promise((resolve) => dead.once('exit', resolve));
    const deadIno = lstatSync(path).ino;
    await waitUntil('the socket made again', () => lstatSync(path).ino !== deadIno, 15_000);
    assert.match(await screenOf(job.id), /marker-42/, 'a new viewer attaches');
  });

  // Found by review of bug 79: a probe every 2 s filled the backlog of a process that does not accept
  // (slow, or suspended), whose socket then refused with EAGAIN, taken for dead: the worker removed
  // it and listened in its place. And at its exit, the worker (and libuv's close) removed it too.
  const foreigners: ForeignSocket[] = [];
  afterEach(() => {
    for (const f of foreigners.splice(0)) f.kill();
  });

  async function foreignInPlaceOfSocket(kind: 'never accepts' | 'accepts', backlog: number) {
    const job = await use.sb.start(['sh', '-c', 'echo marker-$((6*7)); exec cat']);
    const exec = (await use.sb.store.read(job.id)).execution!;
    await waitUntil('the marker on screen', async () => (await screenOf(job.id)).includes('marker-42'));
    // A viewer connected before: it ends the agent when the worker cannot be reached otherwise.
    const viewer = await WorkerClient.connect(use.sb.store, job.id);
    clients.push(viewer);
    await viewer.attach({ cols: 80, rows: 24, readOnly: false });
    const foreign = await foreignSocket(exec.socketPath, kind, backlog);
    foreigners.push(foreign);
    const log = join(use.sb.store.jobDir(job.id), WORKER_LOG_FILE);
    const endAgent = async () => {
      viewer.input('\x04');
      await use.sb.waitForState(job.id, ['completed', 'failed']);
      viewer.dispose();
      await use.sb.waitForWorkerExit(exec.pid);
    };
    return { foreign, log, endAgent };
  }

  it('leaves a socket another process serves and never accepts alone, while it runs and when it exits', async () => {
    // listen(5), the reviewer's: room for the probes to be counted (six fitted, then EAGAIN: taken at ~14 s).
    const { foreign, log, endAgent } = await foreignInPlaceOfSocket('never accepts', 5);
    await waitUntil('the worker saying so', () => readFileSync(log, 'utf8').includes('replaced by a socket another process'), 15_000);
    await sleep(7000);
    assert.ok(foreign.isThere(), 'the other process\'s socket is left in place');
    assert.doesNotMatch(readFileSync(log, 'utf8'), /listening on it again/);
    assert.equal(readFileSync(log, 'utf8').split('replaced by a socket').length, 2, 'said once');
    await endAgent();
    assert.ok(foreign.isThere(), 'nor removed at the worker\'s exit');
    assert.equal(await foreign.connectionsSoFar(), 1, 'probed once, not every 2 s');
  });

  it('leaves a socket whose process is suspended (SIGSTOP) alone, and it serves again once resumed', async () => {
    const { foreign, log, endAgent } = await foreignInPlaceOfSocket('accepts', 1);
    foreign.child.kill('SIGSTOP');
    await waitUntil('the worker saying so', () => readFileSync(log, 'utf8').includes('replaced by a socket another process'), 15_000);
    // A backlog of 1 holds two connections: the old probes every 2 s were refused (EAGAIN) from the third.
    await sleep(8000);
    assert.ok(foreign.isThere(), 'the suspended process\'s socket is left in place');
    foreign.child.kill('SIGCONT');
    await endAgent();
    assert.ok(foreign.isThere(), 'nor removed at the worker\'s exit');
    assert.equal(await readAll(foreign.path), 'foreign\n', 'the other process still serves it');
    assert.ok((await foreign.connectionsSoFar()) <= 2, 'probed once, not every 2 s (and the read above)');
  });

  it('does not remove a socket another process serves when it exits before ever looking', async () => {
    // libuv's close unlinks the path a listener was bound to, whatever is there by then.
    const { foreign, endAgent } = await foreignInPlaceOfSocket('accepts', 16);
    await endAgent();
    assert.ok(foreign.isThere(), 'left in place at the worker\'s exit');
    assert.equal(await readAll(foreign.path), 'foreign\n');
  });
});
