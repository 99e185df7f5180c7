/**
 * The worktree's teardown command (`docker compose down`), run by cleanup in
 * its terminating stage, after the agent is proven stopped and before the
 * evidence is captured. Runs by `/bin/sh -c` in the worktree like the agent's
 * other commands (`runSessionCommand`): its result is its exit, what it leaves
 * running is ended, and a timeout ends all of it. Its output goes to the
 * agent's log (its head and tail, OutputLog.beginBounded); the tail of it is
 * what a failure reports.
 */
import { stripTerminalControls } from '../common/ansi';
import { runSessionCommand } from '../proc';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { TEARDOWN_TIMEOUT_SECONDS } from '../repoConfig/worktreeConfig';
import { redactorForCommandEnv } from '../store/secretEnv';
import type { JobStore } from '../store';
import type { JobRecord } from '../store/schema';

/** What a failure quotes of the output (cleanup's lastError is capped at 2,000 characters). */
const TAIL_BYTES = 1500;

export interface TeardownOptions {
  command: string;
  cwd: string;
  jobId: string;
  /** Carries the job's marker: everything of the teardown is found by it. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Between TERM and KILL, for a timeout and for what the teardown left running. */
  graceMs: number;
  /** Every chunk of output, as it comes (the agent's log). */
  onOutput?(chunk: Buffer): void;
  /** Ends the teardown with everything it started (the command that runs the cleanup was interrupted). */
  abort?: AbortSignal;
}

export interface TeardownOutcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Ended by `abort`. */
  aborted: boolean;
  /** The last lines of its output (stdout and stderr interleaved), plain text. */
  tail: string;
  /** Processes it left running, ended after it exited. */
  leftoversEnded: number;
  /** What would not die even after SIGKILL (pid and name). */
  survivors: string[];
}

export async function runTeardown(opts: TeardownOptions): Promise<TeardownOutcome> {
  let tail = Buffer.alloc(0);
  const result = await runSessionCommand({
    label: 'the teardown command',
    command: opts.command,
    cwd: opts.cwd,
    env: opts.env,
    // The agent is proven stopped before the teardown runs: anything carrying its marker now is the teardown's.
    marker: { name: AGENT_MARKER_ENV, value: opts.jobId },
    graceMs: opts.graceMs,
    timeoutMs: opts.timeoutMs,
    abort: opts.abort,
    onOutput: (chunk) => {
      opts.onOutput?.(chunk);
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES * 2) tail = tail.subarray(tail.length - TAIL_BYTES);
    },
  });
  const text = stripTerminalControls(tail.subarray(Math.max(0, tail.length - TAIL_BYTES)).toString('utf8')).trim();
  return {
    code: result.code,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted: result.aborted,
    tail: text,
    leftoversEnded: result.leftoversEnded,
    survivors: result.survivors.map((p) => `${p.pid} (${p.comm})`),
  };
}

/** The stage's lastError for a teardown that did not succeed: what happened, then the end of its output. */
export function teardownFailure(outcome: TeardownOutcome, timeoutSeconds = TEARDOWN_TIMEOUT_SECONDS): string {
  const what = outcome.aborted
    ? 'teardown interrupted and ended, with everything it started'
    : outcome.timedOut
    ? `teardown timed out after ${timeoutSeconds} s`
    : outcome.signal
      ? `teardown failed (killed by ${outcome.signal})`
      : `teardown failed (exit ${outcome.code})`;
  return outcome.tail ? `${what}: ${outcome.tail}` : what;
}

/**
 * `command` run as `job`'s teardown with `env`, its output in the agent's log and its tail in the
 * outcome, both redacted by the worker's rule for that environment (the cleanup's own process
 * knows none of the agent's secrets).
 */
export async function runLoggedTeardown(store: JobStore, job: JobRecord, command: string, env: NodeJS.ProcessEnv, abort?: AbortSignal): Promise<TeardownOutcome> {
  const redactor = redactorForCommandEnv(env, job.settings.secretEnvNames);
  const output = store.openOutput(job.id, redactor);
  // Its head and tail only: a teardown that floods must not push the agent's own last output out of the log.
  output.beginBounded('teardown');
  output.append(`\r\n\x1b[2m──── teardown: ${command} ────\x1b[0m\r\n`);
  let outcome: TeardownOutcome;
  try {
    outcome = await runTeardown({
      command,
      cwd: job.worktree!,
      jobId: job.id,
      env,
      timeoutMs: TEARDOWN_TIMEOUT_SECONDS * 1000,
      graceMs: Math.min(job.settings.stopGraceMs, 5000),
      abort,
      // A pipe gives bare newlines: the log is a terminal's.
      onOutput: (chunk) => output.append(chunk.toString('utf8').replace(/\r?\n/g, '\r\n')),
    });
  } finally {
    await output.close().catch(() => undefined);
  }
  return { ...outcome, tail: redactor.redact(outcome.tail) };
}
