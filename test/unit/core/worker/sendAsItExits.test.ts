/**
 * Bug 164: a text sent after the agent had exited, while its worker still settled the end, was
 * acknowledged as sent. The worker's input side learnt of the end only once the end was known for
 * good: after the drain wrapper had seen its marker read and exited, and the output had gone quiet.
 * Meanwhile a `send` typed its text into a terminal nobody would read (the wrapper's), or into none
 * at all (node-pty had closed it: dropped without a word), and answered `ack`: `paddock send` and
 * Send Prompt said the text was sent to an agent that had already ended.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { AgentInput } from '../../../../src/core/worker/agentInput';
import { loadNodePty, ptyMasterFd } from '../../../../src/core/worker/ptyHost';
import { nodePtyPath, sleep, useWorkerSandbox, waitUntil } from './fixtures';

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
    } finally {
      signal(worker, 'SIGCONT');
    }
    try {
      await sleep(500);
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
});
