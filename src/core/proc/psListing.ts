/**
 * A `ps` listing of every process (or every process of this user), as the portable backend reads
 * one, told apart from a `ps` that failed. Such a listing is never empty — it holds `ps` itself —
 * and ps exits 0 after it; a run that exits otherwise (at the process limit, killed by the timeout
 * or a signal partway through its output) or prints nothing is a look that failed, not "no
 * processes". Read as one, an agent's exit scan recorded it ended with nothing left running while
 * its `setsid` daemon ran on, never ended (docs/reliability.md, bug 189).
 */
import { execFile, execFileSync, type ExecFileOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, failure } from '../common/errors';

const TOOL_TIMEOUT_MS = 10_000;

/**
 * How many runs a listing gets, and the pause between two: a failure under load is usually brief.
 * All of a look's runs share one TOOL_TIMEOUT_MS: a run killed by its timeout used it up and is not
 * run again, so a look (a blocking one too) never takes longer than one run did before retries
 * (each run its own 10 s made a hanging `ps` block for 40 s, bug 192).
 */
const LISTING_TRIES = 4;
const RETRY_PAUSE_MS = 100;
/** Less than this left of a look's time is no room for another run. */
const LEAST_RUN_MS = 200;

export const TOOL_OPTIONS = (): ExecFileOptions => ({
  timeout: TOOL_TIMEOUT_MS,
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
});

/** The tools a look runs: `ps` for processes, `lsof` for who has a folder open (holders). */
type Tool = 'ps' | 'lsof';

/** The words of a failed look: every try's reason would say the same. */
function failed(tool: Tool, args: readonly string[], reason: string): Error {
  const what = tool === 'ps' ? 'the processes' : 'the processes holding files';
  return failure(`Could not list ${what} (${tool} ${args.join(' ')}): ${reason}.`);
}

type Judge = (err: unknown, stdout: unknown, stderr?: unknown) => string | undefined;

/** A failed run in words: killed by its timeout or by a signal, its exit code, or why it could not start. */
function whyFailed(err: unknown, tool: Tool = 'ps'): string {
  const e = err as { code?: unknown; status?: unknown; signal?: unknown; killed?: unknown };
  // `killed`: execFile ended it for its timeout; "killed by SIGTERM" alone read as if someone had (bug 210).
  // execFileSync says so with code 'ETIMEDOUT' instead, and no `killed`.
  if ((e.killed === true || e.code === 'ETIMEDOUT') && typeof e.signal === 'string') return `${tool} did not finish in the time it had`;
  if (typeof e.signal === 'string') return `${tool} was killed by ${e.signal}`;
  const code = typeof e.code === 'number' ? e.code : e.status;
  if (typeof code === 'number') return `${tool} exited with status ${code}`;
  return describeError(err, 200);
}

/** Why a run's output is no listing, or undefined when it is one. */
const notAListing: Judge = (err, stdout) => {
  if (err) return whyFailed(err);
  return typeof stdout === 'string' && stdout.trim() !== '' ? undefined : 'it printed nothing';
};

/**
 * Why a look at named pids (`ps -p`) failed, or undefined when it answered: ps exits 1 having printed
 * nothing when none of them exists, and that is an answer (gone); killed by its timeout, unable to
 * start, or any other exit, it is not — read as "gone" a live worker's start time went unrecorded
 * and a direct stop took a running worker for ended (bug 190).
 */
const notALook: Judge = (err, stdout) => {
  // The exit code: `code` from execFile, `status` from execFileSync (whose `code` names a spawn error).
  const e = err as { code?: unknown; status?: unknown; signal?: unknown } | null | undefined;
  const code = typeof e?.code === 'number' ? e.code : e?.status;
  const signal = e?.signal;
  if (err && !(code === 1 && !signal && (typeof stdout !== 'string' || stdout.trim() === ''))) return whyFailed(err);
  return undefined;
};

/**
 * Why an `lsof` run failed, or undefined when it answered. lsof exits 1 having printed nothing when
 * nothing matches (measured here: `+D` of a folder nobody holds), and 1 with what it found when part
 * of the search failed (a folder below it it may not read: -w keeps that warning quiet). Killed by
 * its timeout, unable to start, any other exit, or an error said on stderr (-w silences warnings
 * only: "can't fork" is still said) is no answer: read as "nobody", cleanup removed a worktree a
 * live process was working in (bug 195). `listing`: a look at every process's cwd, never empty (it
 * holds lsof's own), so nothing printed is a failure too.
 */
const lsofJudge =
  (listing: boolean): Judge =>
  (err, stdout, stderr) => {
    const e = err as { code?: unknown; status?: unknown; signal?: unknown } | null | undefined;
    const code = typeof e?.code === 'number' ? e.code : e?.status;
    if (err && (code !== 1 || typeof e?.signal === 'string')) return whyFailed(err, 'lsof');
    if (typeof stderr === 'string' && stderr.trim() !== '') return `lsof said: ${stderr.trim().split('\n')[0].slice(0, 200)}`;
    if (listing && (typeof stdout !== 'string' || stdout.trim() === '')) return 'it printed nothing';
    return undefined;
  };

type Run = { out: string } | { reason: string };

/** What `judge` makes of a run's end: its output, or why it is a failed run. */
function judged(judge: Judge, err: unknown, stdout: unknown, stderr?: unknown): Run {
  const reason = judge(err, stdout, stderr);
  return reason === undefined ? { out: typeof stdout === 'string' ? stdout : '' } : { reason };
}

/** One run of `tool args`: its output, or why `judge` takes it for a failed run. */
function runOnce(tool: Tool, args: readonly string[], judge: Judge, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(tool, [...args], { ...TOOL_OPTIONS(), timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => resolve(judged(judge, err, stdout, stderr)));
    child.stdin?.end();
  });
}

/** `runOnce`, blocking: for a caller that must answer at once. */
function runOnceSync(tool: Tool, args: readonly string[], judge: Judge, timeoutMs: number): Run {
  try {
    return judged(judge, undefined, execFileSync(tool, [...args], { ...TOOL_OPTIONS(), timeout: timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch (err) {
    return judged(judge, err, (err as { stdout?: unknown }).stdout);
  }
}

/** The one rule of a look's runs, blocking or not: LISTING_TRIES runs within one TOOL_TIMEOUT_MS (bug 192). */
class Tries {
  private readonly endsAt: number;
  private runs = 0;

  constructor(
    private readonly tool: Tool,
    private readonly args: readonly string[],
    budgetMs: number = TOOL_TIMEOUT_MS,
  ) {
    this.endsAt = Date.now() + budgetMs;
  }

  /** The next run's timeout: what is left of the look's time. */
  timeLeft(): number {
    return Math.max(1, this.endsAt - Date.now());
  }

  /** A run failed: throws the look's failure when no other run is due after `pauseMs`. */
  failed(reason: string, pauseMs: number): void {
    this.runs++;
    if (this.runs >= LISTING_TRIES || !roomForAnother(this.endsAt, pauseMs)) throw failed(this.tool, this.args, reason);
  }
}

/** A whole listing without blocking the event loop, tried again when a run fails; throws when every try failed. */
export function psListing(args: readonly string[]): Promise<string> {
  return tried('ps', args, notAListing);
}

/** A look at named pids (`-p`): '' when none exists, tried again when a run fails; throws when every try failed. */
export function psLook(args: readonly string[]): Promise<string> {
  return tried('ps', args, notALook);
}

/**
 * An `lsof` look, tried again when a run fails; throws when every try failed. `listing`: of every
 * process (never empty); else of files below a folder ('' when nobody has one open). `budgetMs`: all
 * its runs' time (a walk of a large folder takes longer than a listing: see FILES_BELOW_BUDGET_MS).
 */
export function lsofLook(args: readonly string[], listing: boolean, budgetMs: number = TOOL_TIMEOUT_MS): Promise<string> {
  return tried('lsof', args, lsofJudge(listing), budgetMs);
}

/** Whether a look whose time ends at `endsAt` has room for another run after `pauseMs`. */
const roomForAnother = (endsAt: number, pauseMs: number) => endsAt - Date.now() - pauseMs >= LEAST_RUN_MS;

async function tried(tool: Tool, args: readonly string[], judge: Judge, budgetMs: number = TOOL_TIMEOUT_MS): Promise<string> {
  const tries = new Tries(tool, args, budgetMs);
  for (;;) {
    const run = await runOnce(tool, args, judge, tries.timeLeft());
    if ('out' in run) return run.out;
    tries.failed(run.reason, RETRY_PAUSE_MS);
    await sleep(RETRY_PAUSE_MS);
  }
}

/** `psListing` for a caller that must answer at once (the blocking scans): tried again without a pause. */
export function psListingSync(args: readonly string[]): string {
  return triedSync(args, notAListing);
}

/** `psLook` for a caller that must answer at once. */
export function psLookSync(args: readonly string[]): string {
  return triedSync(args, notALook);
}

function triedSync(args: readonly string[], judge: Judge): string {
  const tries = new Tries('ps', args);
  for (;;) {
    const run = runOnceSync('ps', args, judge, tries.timeLeft());
    if ('out' in run) return run.out;
    tries.failed(run.reason, 0);
  }
}
