/**
 * A worker or an agent stopped by SIGSTOP is read from the processes (bug 52): the record goes on
 * saying `running` (nothing is written when a process stops), so every view asks readSuspensions,
 * on either process backend (CI runs this again with PADDOCK_PROCESS_BACKEND=portable).
 */
import * as assert from 'node:assert/strict';
import { processBackend } from '../../../../src/core/proc/backend';
import { readProcStat } from '../../../../src/core/proc';
import { readSuspensions, suspensionWords } from '../../../../src/core/store/suspension';
import { useWorkerSandbox, waitUntil } from '../worker/fixtures';

/** The command the agent's session leader (the drain wrapper) runs: its child in that session. */
async function agentCommandPid(leader: number): Promise<number> {
  let found: number | undefined;
  await waitUntil('the agent command', async () => {
    const members = await processBackend().processesAsync(new Set(), new Set([leader]));
    found = members.find((p) => p.ppid === leader)?.pid;
    return found !== undefined;
  });
  return found!;
}

const stateOf = (pid: number) => readProcStat(pid)?.state;

describe('suspension: a SIGSTOPped worker or agent, read from the processes', function () {
  this.timeout(60_000);
  const w = useWorkerSandbox();

  it('says the worker is suspended while it is stopped, and nothing once it is continued', async () => {
    const job = await w.sb.start(['sh', '-c', 'sleep 600'], { waitFor: ['running'] });
    const worker = job.execution!.pid;
    assert.deepEqual(await readSuspensions([job]), new Map());

    process.kill(worker, 'SIGSTOP');
    try {
      await waitUntil('stopped', () => stateOf(worker) === 'T');
      const suspended = (await readSuspensions([job])).get(job.id);
      assert.deepEqual(suspended, { worker, agent: [] });
      assert.equal(suspensionWords(suspended!), `suspended (SIGSTOP): worker ${worker} — kill -CONT ${worker} resumes it`);
      assert.equal((await w.sb.store.read(job.id)).lifecycle.state, 'running', 'the record stays as it was');
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    await waitUntil('continued', () => stateOf(worker) !== 'T');
    assert.deepEqual(await readSuspensions([await w.sb.store.read(job.id)]), new Map());
  });

  it("says the agent is suspended when its command is stopped, naming that process", async () => {
    const job = await w.sb.start(['sh', '-c', 'sleep 600'], { waitFor: ['running'] });
    const command = await agentCommandPid(job.lifecycle.pid!);
    process.kill(command, 'SIGSTOP');
    try {
      await waitUntil('stopped', () => stateOf(command) === 'T');
      assert.deepEqual((await readSuspensions([job])).get(job.id), { worker: null, agent: [command] });
    } finally {
      process.kill(command, 'SIGCONT');
    }
    await waitUntil('continued', () => stateOf(command) !== 'T');
    assert.deepEqual(await readSuspensions([job]), new Map());
  });

  it('a stopped agent is not taken for an idle one: it stays running until continued, then idles as before', async () => {
    const job = await w.sb.start(['sh', '-c', 'sleep 600'], { waitFor: ['running'], settings: { idleSeconds: 2 } });
    const command = await agentCommandPid(job.lifecycle.pid!);
    process.kill(command, 'SIGSTOP');
    try {
      await new Promise((r) => setTimeout(r, 4500)); // over twice the idle time
      const read = await w.sb.store.read(job.id);
      assert.equal(read.lifecycle.state, 'running', `a stopped agent waits for nobody: ${JSON.stringify(read.lifecycle)}`);
    } finally {
      process.kill(command, 'SIGCONT');
    }
    const waiting = await w.sb.waitForState(job.id, ['waiting'], 10_000);
    assert.equal(waiting.lifecycle.waitingReason, 'idle');
  });
});
