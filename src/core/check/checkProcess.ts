/**
 * Runs a check command in an agent's worktree, the way an agent runs: in a
 * session of its own (so its whole tree can be ended), carrying the job's
 * marker `PADDOCK_JOB_ID` (so Stop and cleanup's termination find it and
 * anything it spawned, even escaped), in the agent's command environment. What it
 * leaves running in its session when it exits is ended. Its output is kept
 * only as a bounded tail: the last lines are what a person reads.
 */
import { existsSync } from 'node:fs';
import { stripTerminalControls } from '../common/ansi';
import { failure } from '../common/errors';
import { runSessionCommand, type EnvMarker } from '../proc';

/** Bytes of output kept (the tail). */
const TAIL_BYTES = 16 * 1024;
/** Lines of the tail that make the summary. */
export const SUMMARY_LINES = 20;

export interface CheckProcessOptions {
  command: string;
  cwd: string;
  /** The agent's command environment (`agentCommandEnv`): its marker and variables. */
  env: NodeJS.ProcessEnv;
  /**
   * The run's own marker (`checkRunMarker`), not the job's: the agent may be running while its check
   * does. What the run leaves behind is found by it, and found by a reader should the runner die.
   */
  marker: EnvMarker;
  /** Grace between TERM and KILL for what the check leaves running. */
  graceMs: number;
  /** Called with the check's pid once it runs. */
  onSpawn?: (pid: number) => void;
  /** After this long the check's whole tree is ended (TERM, then KILL after graceMs); 0: no bound. */
  timeoutMs: number;
  /** Ends the check's whole tree at once (the command that runs it was interrupted). */
  abort?: AbortSignal;
}

export interface CheckProcessResult {
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  /** The last lines of stdout and stderr, interleaved as they came, escape sequences removed. */
  tail: string;
  /** It ran past timeoutMs and was ended. */
  timedOut: boolean;
  /** It was ended by `abort`. */
  aborted: boolean;
}

/** The agent's command environment (built by the caller), marked as this check run's. */
function checkEnv(opts: CheckProcessOptions): NodeJS.ProcessEnv {
  return { ...opts.env, [opts.marker.name]: opts.marker.value, PADDOCK_CHECK: '1' };
}

export async function runCheckProcess(opts: CheckProcessOptions): Promise<CheckProcessResult> {
  if (!existsSync(opts.cwd)) throw failure(`The worktree ${opts.cwd} is gone; there is nothing to check.`);
  const chunks: Buffer[] = [];
  let kept = 0;
  const keep = (b: Buffer) => {
    chunks.push(b);
    kept += b.length;
    while (kept - chunks[0].length >= TAIL_BYTES) kept -= chunks.shift()!.length;
  };
  const result = await runSessionCommand({
    label: 'the check command',
    command: opts.command,
    cwd: opts.cwd,
    env: checkEnv(opts),
    marker: opts.marker,
    graceMs: opts.graceMs,
    timeoutMs: opts.timeoutMs,
    onOutput: keep,
    onSpawn: opts.onSpawn,
    abort: opts.abort,
  });
  const text = stripTerminalControls(Buffer.concat(chunks).toString('utf8')).replace(/\s+$/, '');
  return { exitCode: result.code, signal: result.signal, durationMs: result.durationMs, tail: text.split('\n').slice(-SUMMARY_LINES).join('\n'), timedOut: result.timedOut, aborted: result.aborted };
}
