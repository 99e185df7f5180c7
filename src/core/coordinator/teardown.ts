/**
 * The worktree's teardown command (`docker compose down`), run by cleanup in
 * its terminating stage, after the agent is proven stopped and before the
 * evidence is captured. Runs by `/bin/sh -c` in the worktree, in a process
 * group of its own (a timeout ends the whole group), with the agent's
 * variables. Its output goes to the agent's log; the tail of it is what a
 * failure reports.
 */
import { spawn } from 'node:child_process';
import { failure } from '../common/errors';
import { stripTerminalControls } from '../common/ansi';

/** What a failure quotes of the output (cleanup's lastError is capped at 2,000 characters). */
const TAIL_BYTES = 1500;
const KILL_GRACE_MS = 2000;

export interface TeardownOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Every chunk of output, as it comes (the agent's log). */
  onOutput?(chunk: Buffer): void;
}

export interface TeardownOutcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The last lines of its output (stdout and stderr interleaved), plain text. */
  tail: string;
}

export function runTeardown(opts: TeardownOptions): Promise<TeardownOutcome> {
  return new Promise((resolve, reject) => {
    let tail = Buffer.alloc(0);
    let timedOut = false;
    const child = spawn('/bin/sh', ['-c', opts.command], { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      opts.onOutput?.(chunk);
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES * 2) tail = tail.subarray(tail.length - TAIL_BYTES);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // the group is gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(failure(`the teardown command could not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = stripTerminalControls(tail.subarray(Math.max(0, tail.length - TAIL_BYTES)).toString('utf8')).trim();
      resolve({ code, signal, timedOut, tail: text });
    });
  });
}

/** The stage's lastError for a teardown that did not succeed: what happened, then the end of its output. */
export function teardownFailure(outcome: TeardownOutcome, timeoutSeconds: number): string {
  const what = outcome.timedOut
    ? `teardown timed out after ${timeoutSeconds} s`
    : outcome.signal
      ? `teardown failed (killed by ${outcome.signal})`
      : `teardown failed (exit ${outcome.code})`;
  return outcome.tail ? `${what}: ${outcome.tail}` : what;
}
