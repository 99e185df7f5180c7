/**
 * Bug 164: a text sent after the agent had exited, while its worker still settled the end, was
 * acknowledged as sent. The worker's input side learnt of the end only once the end was known for
 * good: after the drain wrapper had seen its marker read and exited, and the output had gone quiet.
 * Meanwhile a `send` typed its text into a terminal nobody would read (the wrapper's), or into none
 * at all (node-pty had closed it: dropped without a word), and answered `ack`: `paddock send` and
 * Send Prompt said the text was sent to an agent that had already ended.
 */
import * as assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { AgentInput } from '../../../../src/core/worker/agentInput';
import { loadNodePty, ptyMasterFd } from '../../../../src/core/worker/ptyHost';
import { nodePtyPath, useWorkerSandbox, waitUntil } from './fixtures';

/** Children of `pid` running `comm`. */
function childrenNamed(pid: number, comm: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) === pid && stat.includes(`(${comm})`)) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

/** The state letter of /proc/PID/stat (`T`: stopped by a signal), or undefined once it is gone. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** Whether `sig` is pending on the process `pid` (ShdPnd/SigPnd of /proc/PID/status): sent, not yet handled. */
function signalPending(pid: number, sig: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const bit = 1n << BigInt(sig - 1);
    return [...status.matchAll(/^(?:ShdPnd|SigPnd):\s*([0-9a-f]+)$/gm)].some((m) => (BigInt(`0x${m[1]}`) & bit) !== 0n);
  } catch {
    return false;
  }
}

/**
 * An AgentInput on a PTY master of the test's own (/dev/ptmx): its descriptor can be closed and its
 * number reused as node-pty's can, with no reader of node-pty's left on it.
 */
function inputOnOwnPty(noteInput: (data: string) => void = () => undefined): { input: AgentInput; fd: number; logged: string[] } {
  const fd = openSync('/dev/ptmx', 'r+');
  const logged: string[] = [];
  const input = new AgentInput({ ended: () => false, settingUp: () => false, noteInput, log: (m) => logged.push(m), promptNotTyped: () => undefined });
  input.open(fd);
  return { input, fd, logged };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone
  }
}

describe('a text sent as the agent exits', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();

  it('is refused once the agent has exited, while its terminal is still open (the drain marker read)', async () => {
    const { sb } = ctx;
    const job = await sb.start(['sh', '-c', 'sleep 1; exit 0'], { waitFor: ['running'] });
    const rec = await sb.store.read(job.id);
    const worker = rec.lifecycle.workerPid!;
    const wrapper = rec.lifecycle.pid!;
    const c = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(c);
    await c.hello();
    // Held between the agent's exit and the wrapper's: the worker frozen while the agent exits and
    // the wrapper prints its marker (then waits in `sleep 3`), the wrapper frozen before the worker
    // reads the marker, so its SIGUSR1 stays pending and the terminal open.
    signal(worker, 'SIGSTOP');
    try {
      await waitUntil('the wrapper to print its marker and wait', () => childrenNamed(wrapper, 'sleep').length > 0 && childrenNamed(wrapper, 'sh').length === 0, 15_000);
      signal(wrapper, 'SIGSTOP');
      // Frozen, not exited by itself (its `sleep 3` over when finding it took long): else the send
      // would be refused by the PTY's close, and the close at the marker would go untested.
      await waitUntil('the wrapper frozen in its wait', () => procState(wrapper) === 'T', 5000);
    } finally {
      signal(worker, 'SIGCONT');
    }
    try {
      // The worker, running again, reads the marker (closing the agent's input), then sends SIGUSR1 to
      // the frozen wrapper: pending there, it says the worker has read it, however long that took.
      await waitUntil('the worker to read the marker (SIGUSR1 pending on the wrapper)', () => signalPending(wrapper, 10), 15_000);
      assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running', 'its end is not known yet: the send lands in the window');
      await assert.rejects(c.send('typed into nothing'), /The agent has ended/);
    } finally {
      signal(wrapper, 'SIGCONT');
    }
    const done = await sb.waitForState(job.id, ['completed', 'failed', 'cancelled'], 20_000);
    assert.equal(done.lifecycle.state, 'completed', 'the refused send changed nothing of its end');
  });

  it('is refused once the PTY has closed, before the end is recorded', async () => {
    const nodePty = loadNodePty(nodePtyPath());
    const pty = nodePty.spawn('/bin/sh', ['-c', 'stty raw -echo; cat > /dev/null'], { cols: 80, rows: 24, encoding: null });
    try {
      const logged: string[] = [];
      const input = new AgentInput({ ended: () => false, settingUp: () => false, noteInput: () => undefined, log: (m) => logged.push(m), promptNotTyped: () => undefined });
      input.open(ptyMasterFd(pty));
      await input.send('reaches the agent');
      // What the worker does when node-pty reports the exit, before the end is known for good.
      input.close();
      await assert.rejects(input.send('typed into nothing'), /The agent has ended/);
      input.dispose();
    } finally {
      pty.kill('SIGKILL');
    }
  });
  it('is refused once its writer found the PTY closed, before the PTY\'s exit is reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paddock-send-'));
    const { input, fd, logged } = inputOnOwnPty();
    let other: number | undefined;
    try {
      await input.send('reaches the agent');
      // node-pty closes the master once its read side ends, before its exit comes; the number is
      // reused by the next file this process opens, which the writer then declines to write to.
      closeSync(fd);
      other = openSync(join(dir, 'other'), 'w');
      await assert.rejects(input.send('typed into nothing'), /The agent ended before Enter was typed/);
      await assert.rejects(input.send('typed into nothing again'), /The agent has ended/);
      assert.equal(readFileSync(join(dir, 'other'), 'utf8'), '', 'nothing was written to the other file');
      assert.match(logged.join('\n'), /the PTY is closed/);
    } finally {
      input.dispose();
      if (other !== undefined) closeSync(other);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is refused when its writer finds the PTY closed as it types the Enter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paddock-send-'));
    let other: number | undefined;
    // The text is typed in; the PTY closes in the pause before its Enter.
    const { input, fd } = inputOnOwnPty((data) => {
      if (data !== 'the text' || other !== undefined) return;
      closeSync(fd);
      other = openSync(join(dir, 'other'), 'w');
    });
    try {
      await assert.rejects(input.send('the text'), /The agent ended before Enter was typed/);
      assert.equal(readFileSync(join(dir, 'other'), 'utf8'), '');
    } finally {
      input.dispose();
      if (other !== undefined) closeSync(other);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
