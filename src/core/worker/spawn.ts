/**
 * Starts a worker detached from its parent: its own session (`detached`), no
 * terminal, stdio to jobs/<id>/worker.log, unref'd so the parent may exit or
 * reload. Records `launch` right away so a worker that dies before it claims
 * the job is noticed by the next reader.
 */
import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import { failure } from '../common/errors';
import { bootId, readProcStatAsync } from '../proc';
import { processBackend } from '../proc/backend';
import { JobStore } from '../store';
import { WORKER_LOG_FILE } from '../store/paths';
import { isNotRegularFile, openRegularSync } from '../store/regularFile';
import { withoutAgentVariables } from './agentEnv';
import { releaseLaunchGate } from './launchGate';

export interface SpawnWorkerOptions {
  home: string;
  jobId: string;
  generation: number;
  /** Absolute path of dist/worker.js. */
  workerScript: string;
  /** The runtime that runs the worker; default process.execPath (Electron in VS Code). */
  execPath?: string;
  /** node-pty to load instead of the package's (VS Code's copy under its appRoot). */
  nodePtyPath?: string;
  /** Environment of the worker (and, minus Paddock's own variables, of the agent). */
  env: NodeJS.ProcessEnv;
  /** Overrides where the control socket lives. */
  runtimeDir?: string;
  /** Reuse an open store (tests, the coordinator). */
  store?: JobStore;
  /**
   * The worker waits for `release(true)` before it touches the job (see
   * launchGate.ts): the launcher spawns it before its worktree exists.
   */
  gated?: boolean;
}

export interface SpawnedWorker {
  pid: number;
  /** Gated workers only: `true` lets it start the job, `false` makes it exit untouched. A no-op otherwise. */
  release(go: boolean): void;
}

export { WORKER_LOG_FILE };


export function isPlainNode(execPath: string): boolean {
  return /^node(\.exe)?$/i.test(basename(execPath));
}

export async function spawnWorker(opts: SpawnWorkerOptions): Promise<SpawnedWorker> {
  const store = opts.store ?? new JobStore({ home: opts.home });
  const execPath = opts.execPath ?? process.execPath;
  // Not the spawning process's debugger bootloader, nor the per-agent variables of an agent that ran the command.
  const env = withoutAgentVariables(opts.env);
  delete env.NODE_OPTIONS;
  if (isPlainNode(execPath)) delete env.ELECTRON_RUN_AS_NODE;
  else env.ELECTRON_RUN_AS_NODE = '1';
  if (opts.runtimeDir) env.PADDOCK_RUNTIME_DIR = opts.runtimeDir;
  // Recorded identities are comparable only within one process backend: the worker uses its spawner's.
  env.PADDOCK_PROCESS_BACKEND = processBackend().name;

  const args = [opts.workerScript, '--home', opts.home, '--job', opts.jobId, '--generation', String(opts.generation)];
  if (opts.nodePtyPath) args.push('--node-pty', opts.nodePtyPath);
  if (opts.gated) args.push('--gated');

  const dir = store.jobDir(opts.jobId);
  // A worker.log that is not a regular file (a FIFO would block this open for ever) refuses the launch in one sentence.
  let logFd: number;
  try {
    logFd = openRegularSync(join(dir, WORKER_LOG_FILE), 'a', 0o600).fd;
  } catch (err) {
    if (isNotRegularFile(err)) throw failure(`Could not start the worker for agent ${opts.jobId}: ${err.message}.`);
    throw err;
  }
  let pid: number | undefined;
  let gate: Writable | null = null;
  try {
    const child = spawn(execPath, args, { detached: true, stdio: [opts.gated ? 'pipe' : 'ignore', logFd, logFd], env, cwd: dir });
    child.on('error', () => undefined); // reported below through the missing pid
    child.unref();
    pid = child.pid;
    gate = child.stdin;
  } finally {
    closeSync(logFd);
  }
  if (!pid) {
    releaseLaunchGate(gate, false);
    throw failure(`Could not start the worker for agent ${opts.jobId} with ${execPath}.`);
  }

  // A window launches: no blocking `ps` on the portable backend. A look that kept failing records the start time
  // as unknown (null), judged by pid and boot alone until the claim: start time 0 would read as a worker that died
  // at once, and a reader before the claim (a gated worker waits there through the worktree's checkout) would fail
  // the agent while its worker lives; no launch at all would read, once the launcher gave up waiting, as a launcher
  // that stopped — when its worker died (bug 219).
  const looked = await readProcStatAsync(pid).then((stat) => ({ stat }), () => null);
  const launch = {
    workerPid: pid,
    // A worker that died at once has no start time; 0 never matches, so readers judge it dead.
    startTime: looked === null ? null : (looked.stat?.startTime ?? 0),
    bootId: bootId(),
    generation: opts.generation,
    launchedAt: new Date().toISOString(),
  };
  await store.update(opts.jobId, (job) => {
    // The worker may have claimed already; `launch` only matters before that. An ended record never gets
    // one (a launch failed meanwhile: its launcher was suspended, bug 132): a terminal state names no process.
    const unclaimed = job.lifecycle.state === 'queued' || job.lifecycle.state === 'starting';
    if (!job.execution && unclaimed && job.lifecycle.generation === opts.generation) job.launch = launch;
  });
  return { pid, release: (go) => releaseLaunchGate(gate, go) };
}
