/**
 * The agent's input writer, on real PTYs: order and every byte kept, a full PTY
 * waited on without spinning, a backlog that holds the viewers back instead of
 * growing the worker, and no write once the PTY's descriptor names another file.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNodePty, ptyMasterFd, type Pty } from '../../../../src/core/worker/ptyHost';
import { PtyInput } from '../../../../src/core/worker/ptyInput';
import { nodePtyPath, Sandbox, sleep, waitUntil } from './fixtures';

const nodePty = loadNodePty(nodePtyPath());

/** Printable ASCII only: a raw-mode PTY passes it through unchanged, and JSON carries it as it is. */
function text(bytes: number): string {
  return randomBytes(bytes)
    .toString('base64')
    .slice(0, bytes);
}

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

function cpuMs(pid: number): number {
  // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe('core/worker/ptyInput', function () {
  this.timeout(60_000);
  let dir: string;
  const ptys: Pty[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-input-'));
  });
  afterEach(() => {
    for (const p of ptys.splice(0)) {
      try {
        p.kill('SIGKILL');
      } catch {
        // ended
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * An agent in raw mode that waits `delaySeconds`, then copies its input to `out`. It prints a
   * marker once `stty` has run: input written before that would meet the line discipline's
   * canonical mode (echoed, lines cut at 4,095 bytes).
   */
  async function spawnReader(out: string, delaySeconds = 0): Promise<Pty> {
    const pty = nodePty.spawn('sh', ['-c', `stty raw -echo; printf RAW-MODE; sleep ${delaySeconds}; exec cat > '${out}'`], { cols: 80, rows: 24, encoding: null });
    ptys.push(pty);
    let seen = '';
    pty.onData((d) => (seen += d.toString()));
    await waitUntil('raw mode', () => seen.includes('RAW-MODE'));
    return pty;
  }

  it('writes thousands of small writes and a large one in order, every byte', async () => {
    const out = join(dir, 'out');
    const pty = await spawnReader(out);
    const input = new PtyInput(ptyMasterFd(pty), () => undefined);
    let sent = '';
    for (let i = 0; i < 5000; i++) {
      const key = text(1 + (i % 7));
      input.write(key);
      sent += key;
    }
    const paste = text(3 * 1024 * 1024);
    input.write(Buffer.from(paste));
    sent += paste;
    await waitUntil('every byte read', () => existsSync(out) && statSync(out).size >= sent.length, 30_000);
    assert.equal(statSync(out).size, sent.length);
    assert.equal(sha(readFileSync(out)), sha(sent), 'the agent read the input in the order it was written');
    assert.equal(input.pending, 0);
    input.dispose();
  });

  it('a PTY the agent does not read is tried again on a timer, not in a busy loop; the backlog ends when it reads', async () => {
    const out = join(dir, 'out');
    const pty = await spawnReader(out, 3);
    const input = new PtyInput(ptyMasterFd(pty), () => undefined, { highWaterBytes: 512 * 1024, lowWaterBytes: 64 * 1024 });
    let drained = 0;
    input.onDidDrain(() => drained++);
    const sent = text(2 * 1024 * 1024);
    input.write(sent);
    assert.ok(input.isBacklogged, 'past the high-water mark the input is backlogged');
    assert.ok(input.pending > 2 * 1024 * 1024 - 64 * 1024, `the PTY took only what its buffer holds (${input.pending} bytes pending)`);

    const before = process.cpuUsage();
    await sleep(1000);
    const used = process.cpuUsage(before);
    const usedMs = (used.user + used.system) / 1000;
    // node-pty's own writer spent the whole second retrying (2.0 s of CPU in 2 s, measured).
    assert.ok(usedMs < 300, `waiting on a full PTY for 1 s cost ${usedMs.toFixed(0)} ms of CPU`);
    assert.equal(drained, 0);

    await waitUntil('every byte read', () => existsSync(out) && statSync(out).size >= sent.length, 30_000);
    assert.equal(sha(readFileSync(out)), sha(sent));
    assert.equal(drained, 1, 'the backlog ended once');
    assert.equal(input.isBacklogged, false);
    input.dispose();
  });

  it('once the PTY is closed, nothing is written, even when its number now names another file', async () => {
    const pty = await spawnReader(join(dir, 'out'));
    const fd = ptyMasterFd(pty);
    const logged: string[] = [];
    const input = new PtyInput(fd, (m) => logged.push(m));
    const exited = new Promise<void>((r) => pty.onExit(() => r()));
    pty.kill('SIGKILL');
    await exited;
    // The lowest free number is reused: open files until one gets the PTY's old number.
    const opened: number[] = [];
    let victim = '';
    for (let i = 0; i < 64 && !victim; i++) {
      const path = join(dir, `file-${i}`);
      const n = openSync(path, 'w');
      opened.push(n);
      if (n === fd) victim = path;
    }
    try {
      assert.ok(victim, `the PTY's number ${fd} was reused by a file`);
      input.write('this must not land in the file');
      assert.equal(statSync(victim).size, 0, 'nothing was written into the file that reuses the number');
      assert.equal(input.pending, 0);
      assert.match(logged.join('\n'), /PTY is closed; 30 bytes of input were not delivered/);
      input.write('nor this');
      assert.equal(statSync(victim).size, 0);
    } finally {
      for (const n of opened) closeSync(n);
      input.dispose();
    }
  });

  describe('through the worker', () => {
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.dispose());

    it('a viewer typing 32 MB into an agent that reads nothing for 3 s is held back at its socket; every byte arrives in order afterwards', async () => {
      const out = join(sb.cwd, 'typed');
      const job = await sb.start(['sh', '-c', `stty raw -echo; printf RAW-MODE; sleep 3; exec cat > '${out}'`]);
      const { socketPath, socketToken, pid: workerPid } = job.execution!;
      const rssStart = rssKiB(workerPid);
      const cpuStart = cpuMs(workerPid);

      const socket: Socket = createConnection(socketPath);
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(`${JSON.stringify({ type: 'attach', token: socketToken, cols: 80, rows: 24, readOnly: false })}\n`);
      // The viewer reads its screen and output (not the subject here) until the agent says it is in raw mode.
      let screen = '';
      socket.on('data', (d: Buffer) => (screen += d.toString('latin1')));
      await waitUntil('raw mode', () => screen.includes('RAW-MODE'));
      const chunk = 16 * 1024;
      const total = 32 * 1024 * 1024;
      const hash = createHash('sha256');
      for (let sent = 0; sent < total; sent += chunk) {
        const data = text(chunk);
        hash.update(data);
        socket.write(`${JSON.stringify({ type: 'input', data })}\n`);
      }
      await sleep(1500);
      const rssHeld = rssKiB(workerPid);
      const cpuHeld = cpuMs(workerPid) - cpuStart;
      assert.ok(socket.writableLength > 16 * 1024 * 1024, `the viewer's side holds what the worker does not read yet (${socket.writableLength} bytes)`);
      assert.ok(rssHeld - rssStart < 48 * 1024, `the worker grew by ${rssHeld - rssStart} KiB while holding back 32 MB of input`);
      // Reading and parsing the first megabytes costs some; spinning on the full PTY would cost the whole 1.5 s.
      assert.ok(cpuHeld < 1000, `the worker used ${cpuHeld} ms of CPU while the agent read nothing`);

      await waitUntil('every byte typed', () => existsSync(out) && statSync(out).size >= total, 45_000);
      assert.equal(statSync(out).size, total);
      assert.equal(sha(readFileSync(out)), hash.digest('hex'), 'the agent read every byte, in order');
      socket.destroy();
    });

    it('an agent that ends with input still backlogged: the viewer is let go, the worker records the end and exits', async () => {
      const job = await sb.start(['sh', '-c', 'stty raw -echo; printf RAW-MODE; sleep 2; exit 0']);
      const { socketPath, socketToken, pid: workerPid } = job.execution!;
      const socket = createConnection(socketPath);
      socket.on('error', () => undefined);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(`${JSON.stringify({ type: 'attach', token: socketToken, cols: 80, rows: 24, readOnly: false })}\n`);
      await waitUntil('raw mode', () => received.includes('RAW-MODE'));
      for (let i = 0; i < 512; i++) socket.write(`${JSON.stringify({ type: 'input', data: text(16 * 1024) })}\n`);
      const ended = await sb.waitForState(job.id, ['completed', 'failed'], 20_000);
      assert.equal(ended.lifecycle.state, 'completed');
      await waitUntil('the exit frame', () => received.includes('"type":"exit"'), 10_000);
      await sb.waitForWorkerExit(workerPid);
      socket.destroy();
    });
  });
});
