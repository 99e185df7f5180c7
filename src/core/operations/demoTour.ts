/**
 * "Start Demo Agents": a small set of real demo agents (resources/demo-agent.sh)
 * that between them show every state the Agents view can show — running,
 * waiting for you, failed, orphaned (its worker killed on purpose), cleanup
 * incomplete (a process holding its worktree, named as holder), and cleaned —
 * so a newcomer sees each state, its tooltip and its actions within a minute.
 * Everything goes through the operations, as a person's commands would.
 */
import { spawn } from 'node:child_process';
import { signalIfSame } from '../proc';
import { demoAgentScript } from '../profiles/builtins';
import { waitForJob } from '../scheduler/waitForJob';
import type { JobRecord, JobStore, LifecycleState } from '../store';
import type { Operations } from './operations';

export interface DemoTourResult {
  /** Agent ids by the state each was brought to. */
  agents: Record<'waiting' | 'running' | 'failed' | 'orphaned' | 'holder' | 'cleaned', string>;
  /** The process holding the "cleanup incomplete" agent's worktree (it exits by itself after 15 minutes). */
  holderPid: number;
}

/** The change-woken wait the scheduler uses; the tour fails with a sentence if a state never comes. */
async function waitForState(store: JobStore, id: string, states: LifecycleState[], timeoutMs = 30_000): Promise<JobRecord> {
  const job = await waitForJob(store, id, (j) => states.includes(j.lifecycle.state), timeoutMs);
  if (!states.includes(job.lifecycle.state)) throw new Error(`demo agent ${id} did not become ${states.join(' or ')} (it is ${job.lifecycle.state})`);
  return job;
}

export async function startDemoTour(ops: Pick<Operations, 'start' | 'send' | 'cleanup'>, store: JobStore, repo: string): Promise<DemoTourResult> {
  const script = demoAgentScript();
  const scenario = (name: string, title: string) => ops.start({ repo, title, command: ['bash', script, '--scenario', name, '--', title] });
  const ask = (prompt: string) => ops.start({ repo, profile: 'demo', prompt });

  const waiting = await ask('Write a short note about this repository');
  const running = await scenario('work', 'Keep reading the code (runs until stopped)');
  const failed = await scenario('fail', 'Try something that fails');
  const orphaned = await scenario('work', 'Lose its worker (killed on purpose)');
  const cleaned = await ask('Finish and get cleaned up');
  await waitForState(store, waiting.id, ['waiting']);

  // Orphaned: the worker dies under a running agent, as after a crash.
  const victim = await waitForState(store, orphaned.id, ['running', 'waiting']);
  // By the identity its worker recorded (pid + start time), never by a bare pid.
  if (victim.execution) signalIfSame(victim.execution, 'SIGKILL');

  // Cleaned: answer its question, let it finish, clean it up.
  await waitForState(store, cleaned.id, ['waiting']);
  await ops.send(cleaned.id, 'y');
  await waitForState(store, cleaned.id, ['completed', 'failed']);
  await ops.cleanup(cleaned.id);

  // Cleanup incomplete: a finished agent whose worktree a process still uses.
  const held = await ask('Finish while a process uses my worktree');
  await waitForState(store, held.id, ['waiting']);
  await ops.send(held.id, 'y');
  const heldDone = await waitForState(store, held.id, ['completed', 'failed']);
  const holder = spawn('sleep', ['900'], { cwd: heldDone.worktree ?? repo, detached: true, stdio: 'ignore' });
  holder.unref();
  await ops.cleanup(held.id);

  await waitForState(store, orphaned.id, ['orphaned'], 10_000).catch(() => undefined);
  await waitForState(store, failed.id, ['failed']);
  return {
    agents: { waiting: waiting.id, running: running.id, failed: failed.id, orphaned: orphaned.id, holder: held.id, cleaned: cleaned.id },
    holderPid: holder.pid ?? 0,
  };
}
