/**
 * Runs git without a shell, with a predictable environment: C locale (so
 * messages can be recognised), no credential prompts, and none of the GIT_*
 * variables that a surrounding git process (a hook, `git rebase -x`) would
 * leak and that would redirect us to another repository or index.
 *
 * Every call is bounded: a timeout (a hung hook, fsmonitor or network
 * filesystem must not hold a job lock and a capacity slot forever), an
 * optional AbortSignal, and a process-wide cap on git children running at
 * once. A git that is stopped is killed with its whole process group (hooks
 * included), so its pipes close. See docs/architecture.md, "git and child processes".
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, failure } from '../common/errors';
import { Limiter } from '../common/limiter';
import { fewPaths } from './landingConflict';
import { decodeName } from './pathBytes';
import { printable } from '../common/printable';
import { STAT_CHECKED } from './scopedConfig';
import { workTreePin } from './workTreePin';
import { watchForStall } from '../proc/stallWatch';

export interface GitOptions {
  cwd: string;
  /** Added to (and overriding) the cleaned environment. */
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
  /** Resolve with the exit code instead of throwing when git fails. */
  allowFailure?: boolean;
  /**
   * git's standard output goes straight to this open file (stdout is then empty). Unlike
   * `--output=FILE`, git checks writes to its standard output and fails on a full disk.
   */
  stdoutFd?: number;
  /** stdout holds file names: decoded keeping every byte, valid UTF-8 or not (pathBytes.ts). */
  names?: boolean;
  /** stderr names files (the paths `add` refused): decoded keeping every byte, as `names` does stdout. */
  errorNames?: boolean;
  /** Kill git and fail after this long (default GIT_TIMEOUT_MS; long captures pass more). 0: no limit. */
  timeoutMs?: number;
  /**
   * Stop git, as at its bound (isGitTimeout), once its process tree has made no progress for this
   * long: nothing running, no CPU time used (proc/stallWatch.ts). Default (stallBoundOf): GIT_STALL_MS
   * for a call bounded past GIT_TIMEOUT_MS, one that copies a whole worktree; 0: never.
   */
  stallMs?: number;
  /** Kills git (or takes the call out of the queue) and fails when aborted. */
  signal?: AbortSignal;
  /**
   * Settings for this call only, passed as `git -c key=value` (before the subcommand): they win
   * over the repository's config, on every git Paddock supports (GIT_CONFIG_COUNT needs 2.31).
   */
  config?: Readonly<Record<string, string>>;
  /**
   * Run again, for a moment, when git died on a sibling worktree that another `worktree add` is
   * still registering (SIBLING_BEING_ADDED). Only for commands that die on it before they change
   * anything: `branch -D`, `worktree remove`, `worktree list`, `worktree add --detach` (measured).
   */
  pastSiblingAdds?: boolean;
}

/**
 * git 2.39 reads every worktree's registration for `worktree add`, `worktree remove`, `worktree
 * list` and `branch -D`, and dies on one another `worktree add` is still writing (its `commondir`
 * made, not yet filled): "fatal: failed to read .git/worktrees/<sibling>/commondir: Success".
 * Measured: twenty adds side by side in one repository failed by the dozen. The scheduler launches
 * agents side by side, and cleanups run beside launches.
 */
export const SIBLING_BEING_ADDED = /failed to read [^\n]*worktrees\/[^\n]*\/(?:commondir|gitdir)/;
/** How long a call with `pastSiblingAdds` goes on trying (an add registers its worktree in milliseconds). */
const SIBLING_ADD_WAIT_MS = 3000;

/**
 * For writes of Paddock's own refs (refs/paddock/…): the person's reference-transaction hook (a
 * policy refusing refs it does not know, one that hangs) must not refuse or hold the snapshot that
 * lets a worktree be removed. runGit's `config` (git -c), which every git reads.
 */
export const NO_HOOKS: Readonly<Record<string, string>> = { 'core.hooksPath': '/dev/null' };
/**
 * The same, as an environment for every git call of one step (git reads GIT_CONFIG_PARAMETERS, and
 * `-c` adds to it): the person's `post-index-change` hook ran, and could hang, on each write of a
 * capture's scratch indexes (bug 105).
 */
export const NO_HOOKS_ENV: Readonly<{ GIT_CONFIG_PARAMETERS: string }> = { GIT_CONFIG_PARAMETERS: configParameters(NO_HOOKS) };

/** Settings in git's GIT_CONFIG_PARAMETERS form (`'key=value'`, space-separated; values here hold no quote). */
function configParameters(config: Readonly<Record<string, string>>): string {
  return Object.entries(config)
    .map(([key, value]) => `'${key}=${value}'`)
    .join(' ');
}

/** Read-only git calls must not take index.lock to refresh the index. */
export const READ_ONLY_GIT = { GIT_OPTIONAL_LOCKS: '0' };

/** Default bound of one git call. */
export const GIT_TIMEOUT_MS = 120_000;
/** Bound of the steps that copy a whole worktree (capture's `add -A`, patch writing, restore's checkout). */
/**
 * Said to every diff that lists or carries the agent's changes: without it a diff follows the person's
 * diff.ignoreSubmodules and submodule.<name>.ignore, and a submodule the agent moved would be missing
 * from the list that safety checks compare (and from the patch), though git still moves it.
 */
export const ALL_SUBMODULES = '--ignore-submodules=none';
/**
 * Said to the `git status` that asks what is uncommitted: a submodule moved to another commit counts
 * whatever the person's settings say (`git add -A` commits it), but what is inside a submodule (its
 * own edits, its untracked build output) is not: no commit or stash of the superproject clears it,
 * and the person's `ignore = untracked` or `dirty` says they do not want it counted.
 */
export const MOVED_SUBMODULES = '--ignore-submodules=dirty';

export const GIT_BULK_TIMEOUT_MS = 600_000;
/**
 * How long a git bounded by GIT_BULK_TIMEOUT_MS may make no progress at all before it is stopped:
 * a stopped one (SIGSTOP) or one waiting on a filter that never answers held a cleanup for the whole
 * ten minutes, while one that hashes a big repository works all along and is let run (bug 138).
 */
export const GIT_STALL_MS = 60_000;

/** How long `opts`' git may make no progress before it is stopped (0: never). */
export function stallBoundOf(opts: GitOptions): number {
  return opts.stallMs ?? ((opts.timeoutMs ?? GIT_TIMEOUT_MS) > GIT_TIMEOUT_MS ? GIT_STALL_MS : 0);
}
/** git children of this process running at once; the rest wait in order. */
export const GIT_MAX_CONCURRENT = 8;

const gitSlots = new Limiter(GIT_MAX_CONCURRENT);

/** git children of this process running now. */
export function gitProcessesRunning(): number {
  return gitSlots.active;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * The GIT_* variables a caller may pass on to git: who commits, how to reach remotes, which config
 * files to read, and tracing. Every other one is dropped, because git has dozens that redirect it
 * (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR…), change what it reads or records
 * (GIT_CONFIG_PARAMETERS, GIT_REPLACE_REF_BASE, GIT_GRAFT_FILE, GIT_SHALLOW_FILE, GIT_INDEX_VERSION)
 * or change what a pathspec means (GIT_LITERAL_PATHSPECS makes the capture's `:(exclude)` a path):
 * a list of the bad ones is never complete, a list of the harmless ones is.
 */
const PASSED_VARIABLES = new Set([
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_SSH_VARIANT',
  'GIT_ASKPASS',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_ALLOW_PROTOCOL',
  'GIT_PROTOCOL_FROM_USER',
  'GIT_CURL_VERBOSE',
]);
const PASSED_PREFIXES = ['GIT_HTTP_', 'GIT_SSL_', 'GIT_PROXY_', 'GIT_TRACE'];

function isPassed(name: string): boolean {
  return PASSED_VARIABLES.has(name) || PASSED_PREFIXES.some((p) => name.startsWith(p));
}

export function gitEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_') || isPassed(name)) env[name] = value;
  return { ...env, LC_ALL: 'C', LANG: 'C', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', ...extra };
}

// git's last word when a clean or smudge filter fails on a file (`<path>: clean filter '<driver>' failed`,
// `<path>: smudge filter <driver> failed`); nothing quotes the path, so it may not run on past a line of git's own.
const FILTER_FAILED = /^fatal: ((?:(?!\n(?:fatal|error|hint|warning): )[^])+?): (clean|smudge) filter '?([^'\n]*?)'? failed$/m;
// Why, when the filter said: it could not be started, or the exit code of the command (127: not found).
const FILTER_CAUSE = /^error: (cannot run [^\n]*|external filter '[^\n]*' failed \d+)$/m;

/**
 * A filter that failed, in words naming the file: the error line git writes first ("external
 * filter 'x' failed 1") names neither the file nor which side of the filter; null when none failed.
 */
function filterFailure(text: string): string | null {
  const m = FILTER_FAILED.exec(text);
  if (!m) return null;
  const cause = FILTER_CAUSE.exec(text)?.[1];
  return `the ${m[2]} filter '${m[3]}' failed on ${printable(m[1])}${cause ? ` (${cause})` : ''}`;
}

/** The git command of `args` (`checkout-index`), past the `-c name=value` settings before it. */
export function gitCommandOf(args: readonly string[]): string {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) i += args[i] === '-c' || args[i] === '-C' ? 2 : 1;
  return args[i] ?? args[0] ?? '';
}

/**
 * The line of git's stderr that says what went wrong (its fatal/error line when there is one). A
 * line that ends in a colon introduces the files it is about (tab-indented below it, as in "The
 * following untracked working tree files would be overwritten by merge:"): they are the point of
 * the message, so the first few are kept, joined to that line.
 */
export function firstLine(text: string): string {
  const filter = filterFailure(text);
  if (filter !== null) return filter;
  const raw = text.split('\n');
  const said = raw.map((l, i) => ({ line: l.trim(), i })).filter(({ line }) => line.length > 0 && !line.startsWith('hint:'));
  const chosen = said.find(({ line }) => /^(fatal|error): /.test(line)) ?? said[0];
  if (chosen === undefined) return '';
  // A line git ends in ';' goes on with its advice ("use 'add -f' to override"), which is not ours to
  // give; its closing '.' is not ours either: callers put the line inside a sentence of their own.
  const line = chosen.line.replace(/^(fatal|error): /, '').replace(/(?<!\.)[;.]$/, '');
  if (!line.endsWith(':')) return line;
  const files: string[] = [];
  for (const next of raw.slice(chosen.i + 1)) {
    if (!next.startsWith('\t') || next.trim() === '') break;
    files.push(next.trim());
  }
  return files.length > 0 ? `${line} ${fewPaths(files)}` : line;
}

/**
 * How a git command that changes files ended, never a rejection: its exit code and stderr, and `why`
 * in words (its error line, or why runGit stopped it: a timeout). For callers that judge the outcome
 * by the state git left (where the branch is), not by the exit status alone.
 */
export async function gitOutcome(args: string[], opts: GitOptions): Promise<{ code: number; stderr: string; why: string }> {
  return runGit(args, { ...opts, allowFailure: true }).then(
    (done) => ({ code: done.code, stderr: done.stderr, why: firstLine(done.stderr) || `exit code ${done.code}` }),
    (err: unknown) => ({ code: -1, stderr: '', why: describeError(err, 300) }),
  );
}

/** Runs `git args…` in opts.cwd; output is collected without a size limit (streams, no maxBuffer). */
export async function runGit(args: string[], opts: GitOptions): Promise<GitResult> {
  if (!opts.pastSiblingAdds) return runGitOnce(args, opts);
  const deadline = Date.now() + SIBLING_ADD_WAIT_MS;
  for (let delay = 20; ; delay = Math.min(delay * 2, 400)) {
    const res = await runGitOnce(args, { ...opts, allowFailure: true });
    if (res.code === 0 || !SIBLING_BEING_ADDED.test(res.stderr) || Date.now() + delay > deadline) {
      if (res.code !== 0 && !opts.allowFailure) throw gitFailure(args, opts, res, null);
      return res;
    }
    await sleep(delay * (0.5 + Math.random()));
  }
}

function gitFailure(args: string[], opts: GitOptions, result: GitResult, signal: NodeJS.Signals | null): Error {
  const why = firstLine(result.stderr) || (signal ? `killed by ${signal}` : `exit code ${result.code}`);
  return failure(`git ${gitCommandOf(args)} failed in ${opts.cwd}: ${why}`, 'git');
}

async function runGitOnce(args: string[], opts: GitOptions): Promise<GitResult> {
  const signal = opts.signal;
  // The agent's own core.worktree / core.bare must not send git to another folder (workTreePin.ts); the caller's env wins.
  // Looked up inside the slot: calls start in the order they were made, and a cancel is seen before the look.
  const pinnedRun = async (): Promise<GitResult> => {
    signal?.throwIfAborted();
    const pin = await workTreePin(opts.cwd, args, opts.env, Math.min(opts.timeoutMs || GIT_TIMEOUT_MS, 5000));
    return spawnGit(args, { ...opts, env: { ...pin, ...opts.env } });
  };
  return gitSlots.run(pinnedRun, signal).catch((err: unknown) => {
    if (signal?.aborted && err === signal.reason) throw cancelled(args, opts);
    throw err;
  });
}

/** The errors runGit made when it stopped git at its bound: told apart from a git that could not be run. */
const stoppedAtBound = new WeakSet<Error>();

/** Whether `err` is runGit's stop of a git that ran past its `timeoutMs`. */
export function isGitTimeout(err: unknown): boolean {
  return err instanceof Error && stoppedAtBound.has(err);
}

function timedOut(args: string[], opts: GitOptions, timeoutMs: number): Error {
  const err = failure(`git ${gitCommandOf(args)} in ${opts.cwd} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped.`, 'git');
  stoppedAtBound.add(err);
  return err;
}

function stalled(args: string[], opts: GitOptions, quietMs: number): Error {
  const err = failure(`git ${gitCommandOf(args)} in ${opts.cwd} made no progress for ${Math.round(quietMs / 1000)} s (stopped, or waiting on something that does not answer) and was stopped.`, 'git');
  stoppedAtBound.add(err);
  return err;
}

function cancelled(args: string[], opts: GitOptions): Error {
  return failure(`git ${gitCommandOf(args)} in ${opts.cwd} was cancelled.`, 'git');
}

function spawnGit(args: string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(cancelled(args, opts));
      return;
    }
    // Its own process group (detached), so a stop reaches the hooks and helpers git started.
    const overrides = Object.entries({ ...STAT_CHECKED, ...opts.config }).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
    // No input: stdin is /dev/null (end of input at once, as an empty pipe gives), with no pipe to make and close.
    const stdin = opts.input === undefined ? 'ignore' : 'pipe';
    const child = spawn('git', [...overrides, ...args], { cwd: opts.cwd, env: gitEnv(opts.env), stdio: [stdin, opts.stdoutFd ?? 'pipe', 'pipe'], windowsHide: true, detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const timeoutMs = opts.timeoutMs ?? GIT_TIMEOUT_MS;
    const timer = timeoutMs > 0 ? setTimeout(() => stop(timedOut(args, opts, timeoutMs)), timeoutMs) : undefined;
    const onAbort = () => stop(cancelled(args, opts));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // git is detached: its pid is its session, which its filters and hooks share.
    const quietMs = stallBoundOf({ ...opts, timeoutMs });
    const unwatch = quietMs > 0 && child.pid ? watchForStall({ sid: child.pid, quietMs, onStall: () => stop(stalled(args, opts, quietMs)) }) : undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unwatch?.();
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    // Killed with its group and failed at once: a grandchild holding the pipes must not keep the call open.
    const stop = (why: Error) => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      settle(() => reject(why));
    };
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e: NodeJS.ErrnoException) =>
      settle(() => {
        // A missing cwd also surfaces as "spawn git ENOENT": tell the two apart.
        if (e.code === 'ENOENT' && !existsSync(opts.cwd)) reject(failure(`Folder ${opts.cwd} does not exist.`));
        else if (e.code === 'ENOENT') reject(failure('git is not installed or not on PATH.'));
        else reject(failure(`Could not run git in ${opts.cwd}: ${e.message}.`));
      }),
    );
    child.on('close', (code, signal) =>
      settle(() => {
        const result: GitResult = {
          stdout: opts.names ? decodeName(Buffer.concat(out)) : Buffer.concat(out).toString('utf8'),
          stderr: opts.errorNames ? decodeName(Buffer.concat(err)) : Buffer.concat(err).toString('utf8'),
          code: code ?? 128,
        };
        if (result.code !== 0 && !opts.allowFailure) {
          reject(gitFailure(args, opts, result, signal));
          return;
        }
        resolve(result);
      }),
    );
    if (child.stdin) {
      // git may exit before reading its input (EPIPE); the exit code tells what happened.
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input);
    }
  });
}
