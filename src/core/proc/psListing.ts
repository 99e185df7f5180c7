/**
 * A `ps` listing of every process (or every process of this user), as the portable backend reads
 * one, told apart from a `ps` that failed. Such a listing is never empty — it holds `ps` itself —
 * and ps exits 0 after it; a run that exits otherwise (at the process limit, killed by the timeout
 * or a signal partway through its output) or prints nothing is a look that failed, not "no
 * processes". Read as one, an agent's exit scan recorded it ended with nothing left running while
 * its `setsid` daemon ran on, never ended (docs/reliability.md, bug 190).
 */
import { execFile, execFileSync, type ExecFileOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, failure } from '../common/errors';

const TOOL_TIMEOUT_MS = 10_000;

/** How many runs a listing gets, and the pause between two: a failure under load is usually brief. */
const LISTING_TRIES = 4;
const RETRY_PAUSE_MS = 100;

export const TOOL_OPTIONS = (): ExecFileOptions => ({
  timeout: TOOL_TIMEOUT_MS,
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
});

/** The words of a failed listing: every try's reason would say the same. */
function failed(args: readonly string[], reason: string): Error {
  return failure(`Could not list the processes (ps ${args.join(' ')}): ${reason}.`);
}

/** Why a run's output is no listing, or undefined when it is one. */
function notAListing(err: unknown, stdout: unknown): string | undefined {
  if (err) return describeError(err, 200);
  return typeof stdout === 'string' && stdout.trim() !== '' ? undefined : 'it printed nothing';
}

/** One run of `ps args`: its output, or why it is no listing. */
function runOnce(args: readonly string[]): Promise<{ out: string } | { reason: string }> {
  return new Promise((resolve) => {
    const child = execFile('ps', [...args], { ...TOOL_OPTIONS(), encoding: 'utf8' }, (err, stdout) => {
      const reason = notAListing(err, stdout);
      resolve(reason === undefined ? { out: stdout } : { reason });
    });
    child.stdin?.end();
  });
}

/** A whole listing without blocking the event loop, tried again when a run fails; throws when every try failed. */
export async function psListing(args: readonly string[]): Promise<string> {
  let reason = '';
  for (let attempt = 1; attempt <= LISTING_TRIES; attempt++) {
    const run = await runOnce(args);
    if ('out' in run) return run.out;
    reason = run.reason;
    if (attempt < LISTING_TRIES) await sleep(RETRY_PAUSE_MS);
  }
  throw failed(args, reason);
}

/** `psListing` for a caller that must answer at once (the blocking scans): tried again without a pause. */
export function psListingSync(args: readonly string[]): string {
  let reason = '';
  for (let attempt = 1; attempt <= LISTING_TRIES; attempt++) {
    let out: unknown;
    let error: unknown;
    try {
      out = execFileSync('ps', [...args], { ...TOOL_OPTIONS(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch (err) {
      error = err;
    }
    const why = notAListing(error, out);
    if (why === undefined) return out as string;
    reason = why;
  }
  throw failed(args, reason);
}
