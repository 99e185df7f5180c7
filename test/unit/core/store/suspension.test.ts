/**
 * A worker or an agent stopped by SIGSTOP is read from the processes (bug 52): the record goes on
 * saying `running` (nothing is written when a process stops), so every view asks readSuspensions,
 * on either process backend (CI runs this again with PADDOCK_PROCESS_BACKEND=portable).
 */
import * as assert from 'node:assert/strict';
import { processBackend } from '../../../../src/core/proc/backend';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { identityOf, readProcStat } from '../../../../src/core/proc';
import { storeSuspensions } from '../../../../src/core/operations/suspensions';
import { jobLock } from '../../../../src/core/operations/context';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';
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

  /** A process of the test's own, stopped (SIGSTOP) for the length of `fn`, and killed after. */
  async function whileStopped(fn: (pid: number) => Promise<void>): Promise<void> {
    const child = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
    const pid = child.pid!;
    try {
      await waitUntil('started', () => readProcStat(pid) !== undefined);
      process.kill(pid, 'SIGSTOP');
      await waitUntil('stopped', () => stateOf(pid) === 'T');
      await fn(pid);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  }

  // Bug 133: a check said to run, holding a slot, by a runner that is stopped was shown at work.
  it('says the check runner is suspended when the process running an ended agent\'s check is stopped', async () => {
    const ended = await w.sb.start(['true'], { waitFor: ['completed'] });
    await whileStopped(async (pid) => {
      const runner = identityOf(pid)!;
      const job = await w.sb.store.update(ended.id, (j) => ({ ...j, check: { state: 'running', exitCode: null, durationMs: null, at: new Date().toISOString(), summary: '', runner } }));
      const suspended = (await readSuspensions([job])).get(job.id);
      assert.deepEqual(suspended, { worker: null, agent: [], checkRunner: pid });
      assert.equal(suspensionWords(suspended!), `suspended (SIGSTOP): check runner ${pid} — kill -CONT ${pid} resumes it`);
    });
  });

  // Bug 133: a starting agent whose worker, spawned but not yet claiming, is stopped read as a launch at work.
  it('says the worker of a start it has not claimed yet is suspended', async () => {
    const queued = await w.sb.createJob(['true']);
    await w.sb.store.transition(queued.id, 'starting', { detail: 'creating its worktree' }, { expectFrom: ['queued'] });
    await whileStopped(async (pid) => {
      const { startTime, bootId } = identityOf(pid)!;
      const job = await w.sb.store.update(queued.id, (j) => ({ ...j, launch: { workerPid: pid, startTime, bootId, generation: 1, launchedAt: new Date().toISOString() } }));
      assert.equal(job.lifecycle.state, 'starting');
      assert.deepEqual((await readSuspensions([job])).get(job.id), { worker: pid, agent: [] });
    });
    await w.sb.store.transition(queued.id, 'failed');
  });

  // Bug 134: an ended agent whose worker, still ending what it left running, is stopped read "ending 1 process …" (a retry waits for it).
  it('says the worker of an ended agent still ending what it left running is suspended', async () => {
    const daemon = `setsid sh -c "trap '' TERM; exec sleep 617" >/dev/null 2>&1 & sleep 0.3; exit 0`;
    const job = await w.sb.start(['sh', '-c', daemon], { waitFor: ['completed'], settings: { stopGraceMs: 5000 } });
    const worker = job.leftoversEnder?.pid;
    assert.ok(worker !== undefined, `a worker ends the daemon: ${JSON.stringify(job.lifecycle)}`);
    process.kill(worker, 'SIGSTOP');
    try {
      await waitUntil('stopped', () => stateOf(worker) === 'T');
      const read = await w.sb.store.read(job.id);
      assert.match(lifecycleDetail(read) ?? '', /ending 1 process it left running/);
      assert.deepEqual((await readSuspensions([read])).get(job.id), { worker, agent: [] });
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    await waitUntil('the daemon ended', async () => !(await w.sb.store.read(job.id)).leftoversEnder);
  });

  // Bug 134: a cleanup said to be under way whose runner (its operation lock's holder) is stopped was shown at work.
  it('says the cleanup runner is suspended when the holder of an agent\'s lock during its cleanup is stopped', async () => {
    const ended = await w.sb.start(['true'], { waitFor: ['completed'] });
    const lock = await jobLock(w.sb.store, ended.id).tryAcquire();
    assert.ok(lock);
    const now = new Date().toISOString();
    const job = await w.sb.store.update(ended.id, (j) => ({
      ...j,
      cleanup: { phase: 'capturing', remaining: ['worktree', 'branch'], stage: null, failures: 0, nextAttemptAt: null, lastError: null, needsAttention: false, holders: [], deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: now, updatedAt: now },
    }));
    await lock.release();
    // The lock held by a process that is then stopped, as a `paddock cleanup` Ctrl-Z'd mid-capture holds it.
    const script = `new (require(${JSON.stringify(resolve(__dirname, '../../../../src/core/coordinator/ownedLock.js'))}).OwnedLock)(${JSON.stringify(jobLock(w.sb.store, ended.id).lockDir)}, 'cleanup').tryAcquire().then((l) => { if (!l) process.exit(3); require('fs').writeFileSync(${JSON.stringify(join(w.sb.home, 'held'))}, ''); setInterval(() => {}, 1000); })`;
    const holder = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true });
    try {
      await waitUntil('the lock held', () => existsSync(join(w.sb.home, 'held')));
      process.kill(holder.pid!, 'SIGSTOP');
      await waitUntil('stopped', () => stateOf(holder.pid!) === 'T');
      assert.deepEqual(await readSuspensions([job]), new Map(), 'without the lock named, nothing to look at');
      assert.deepEqual((await storeSuspensions(w.sb.store, [job])).get(job.id), { worker: null, agent: [], cleanupRunner: holder.pid });
    } finally {
      process.kill(holder.pid!, 'SIGKILL');
    }
  });
});
