/**
 * Runs a shell command for an agent (its check, its worktree's teardown) the
 * way an agent runs: in a session of its own, every process carrying a marker.
 * Its result is its main process's exit — not the closing of its pipes, which
 * a background process it started may hold open for ever. What it leaves
 * running (its session, and anything carrying the marker, escaped or not) is
 * ended once it exited; a timeout, or an abort (the CLI that runs it was
 * interrupted), ends the whole tree (TERM, the grace, KILL) and the run still
 * returns: nothing of it outlives the process that asked for it.
 */
import { spawn } from 'node:child_process';
import { graceOnAbort } from '../common/closing';
import { failure } from '../common/errors';
import type { EnvMarker } from './backend';
import { treeMembers } from './scan';
import { terminateProcessTree, type TerminateResult } from './terminate';
import { setTimeout as sleep } from 'node:timers/promises';

/** After the main process exits, how long its pipes get to deliver the last output. */
const PIPE_DRAIN_MS = 300;
/** A main process that does not report its exit even after SIGKILL (uninterruptible I/O) is waited for no longer. */
const EXIT_AFTER_KILL_MS = 1000;

export interface SessionCommandOptions {
  /** What it is, for the sentence when it cannot start ("the teardown command"). */
  label: string;
  command: string;
  cwd: string;
  /** Must set `marker` (every process of the run inherits it). */
  env: NodeJS.ProcessEnv;
  /** What finds the run's processes that left its session; everything carrying it is ended after the run. */
  marker: EnvMarker;
  /** Between TERM and KILL, for a timeout and for what it left running. */
  graceMs: number;
  /** After this long the whole tree is ended; 0: no bound. */
  timeoutMs: number;
  /** Every chunk of output (stdout and stderr interleaved), as it comes. */
  onOutput(chunk: Buffer): void;
  onSpawn?(pid: number): void;
  /** Ends the whole tree at once, as the timeout does (a Ctrl-C of the command that runs it). */
  abort?: AbortSignal;
}

export interface SessionCommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Ended by `abort`. */
  aborted: boolean;
  durationMs: number;
  /** Processes it left running after it exited, ended since. */
  leftoversEnded: number;
  /** Still running after SIGKILL (normally none). */
  survivors: TerminateResult['survivors'];
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };


export async function runSessionCommand(opts: SessionCommandOptions): Promise<SessionCommandResult> {
  const started = Date.now();
  const child = spawn('/bin/sh', ['-c', opts.command], { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', opts.onOutput);
  child.stderr.on('data', opts.onOutput);
  const closed = Promise.all([new Promise((r) => child.stdout.once('close', r)), new Promise((r) => child.stderr.once('close', r))]);
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', (err) => reject(failure(`${opts.label} could not start: ${err.message}`)));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let timedOut = false;
  let ending: Promise<TerminateResult> | undefined;
  // The session and the marker: the shell, what it started, and whatever escaped the session.
  const endTree = (graceMs = opts.graceMs): Promise<TerminateResult> =>
    (ending ??= terminateProcessTree({ sid: child.pid!, marker: opts.marker, graceMs }).catch(() => ({ survivors: [] })));
  let bound: NodeJS.Timeout | undefined;
  let aborted = false;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<null>((resolve) => {
    child.once('spawn', () => {
      opts.onSpawn?.(child.pid!);
      if (opts.timeoutMs > 0) {
        bound = setTimeout(() => {
          timedOut = true;
          void endTree().then(() => resolve(null));
        }, opts.timeoutMs);
      }
      onAbort = () => {
        aborted = true;
        void endTree(graceOnAbort(opts.abort, opts.graceMs)).then(() => resolve(null));
      };
      if (opts.abort?.aborted) onAbort();
      else opts.abort?.addEventListener('abort', onAbort, { once: true });
    });
  });
  let exit: Exit;
  try {
    // Ended by its timeout or an abort but its main process never reported: it is not waited for past the KILL.
    exit = (await Promise.race([exited, ended.then(() => Promise.race([exited, sleep(EXIT_AFTER_KILL_MS, null)]))])) ?? { code: null, signal: 'SIGKILL' };
  } finally {
    clearTimeout(bound);
    if (onAbort) opts.abort?.removeEventListener('abort', onAbort);
  }
  const durationMs = Date.now() - started;
  // A background process may hold the pipes open: wait briefly, then stop reading.
  await Promise.race([closed, sleep(PIPE_DRAIN_MS, null)]);
  child.stdout.destroy();
  child.stderr.destroy();
  if (timedOut || aborted) return { ...exit, timedOut, aborted, durationMs, leftoversEnded: 0, survivors: (await endTree()).survivors };
  const left = (await treeMembers(child.pid!, opts.marker)).filter((p) => p.pid !== process.pid);
  if (left.length === 0) return { ...exit, timedOut, aborted, durationMs, leftoversEnded: 0, survivors: [] };
  const { survivors } = await endTree();
  return { ...exit, timedOut, aborted, durationMs, leftoversEnded: left.length - survivors.length, survivors };
}
