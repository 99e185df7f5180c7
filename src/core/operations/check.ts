/**
 * Run Check: the repository's check command in an agent's worktree, recorded
 * as the record's `check {state, exitCode, durationMs, at, summary}`. A running
 * check holds a capacity slot: it is claimed under the same capacity lock the
 * scheduler launches agents under. The record names the process running it
 * (`check.runner`), so a leader finds a check whose runner died and runs it
 * again. Not under the job's operation lock while the command runs: Stop and
 * cleanup must be able to end it (they find it by the job's marker).
 */
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, failure, usageError } from '../common/errors';
import { findCheckCommand, CheckCommandOptions, requireCheckCommand, type CheckCommand } from '../check/checkCommand';
import { runCheckProcess, type CheckProcessResult } from '../check/checkProcess';
import { guardWorktree, worktreeChangesByCheck } from '../check/worktreeGuard';
import { agentCommandEnv } from '../worker/agentEnv';
import { redactorForCommandEnv } from '../store/secretEnv';
import { capacityOf } from '../coordinator/capacity';
import { OwnedLock } from '../coordinator/ownedLock';
import { isSuspended } from '../coordinator/suspendedHolder';
import { livenessOf, ownIdentity, processTableSource, readProcStat, type StatSource } from '../proc';
import type { JobStore } from '../store';
import { waitForChange } from '../store/watcher';
import type { Check, JobRecord } from '../store/schema';
import { checkRunMarker } from '../store/checkRunner';
import { okJobs, type OperationContext } from './context';
import { checkBlocker } from './rules';
import { runInWorktreeProblem } from './runInWorktree';

const CAPACITY_WAIT_MS = 30_000;
/** How often a foreground check waiting for a slot looks again though nothing in the store changed. */
const SLOT_RECHECK_MS = 5000;
/** The least time between two looks for a slot, however often the store changes. */
const SLOT_MIN_GAP_MS = 1000;

export interface RunCheckOptions extends Omit<CheckCommandOptions, 'home'> {
  /** Wait for a capacity slot (a person's check); false: leave it queued and return null (the scheduler's). */
  waitForSlot: boolean;
  /** Told once when the check has to wait for a slot. */
  onWaiting?: () => void;
  /**
   * The command that runs the check was interrupted (a Ctrl-C): a running check is ended with
   * everything it started and recorded failed; a wait for a slot ends, recorded as not run.
   */
  abort?: AbortSignal;
}

export function capacityLockOf(store: JobStore): OwnedLock {
  return new OwnedLock(path.join(store.home, 'coordinator', 'capacity.lock'), 'capacity');
}

function me(): NonNullable<Check['runner']> {
  const id = ownIdentity();
  if (!id) throw new Error('this process cannot read its own identity');
  return id;
}

/** A check in the record that some live process is running or waiting to run (judged against `stats`, a table read after the record). */
export function checkInHand(job: JobRecord, stats: StatSource = readProcStat): boolean {
  const c = job.check;
  return (c?.state === 'running' || c?.state === 'queued') && c.runner != null && livenessOf(c.runner, stats) === 'alive';
}

/**
 * Claims a slot for the check and records it `running` (by this process); when capacity is full,
 * records it `queued` and returns false. Refuses when another live process has the check in hand.
 */
async function claimSlot(ctx: OperationContext, id: string, runner: NonNullable<Check['runner']>, holdWhileQueued: boolean): Promise<boolean> {
  return capacityLockOf(ctx.store).with(CAPACITY_WAIT_MS, async () => {
    const entries = await ctx.store.list();
    const job = okJobs(entries).find((j) => j.id === id) ?? (await ctx.store.read(id));
    const blocker = checkBlocker(job);
    if (blocker) throw usageError(blocker);
    const other = job.check?.runner && job.check.runner.pid !== runner.pid ? job.check.runner : undefined;
    if (other && checkInHand(job, await processTableSource())) throw usageError(`A check of agent ${id} is already under way in process ${other.pid}.`);
    const max = ctx.settings().maxConcurrent;
    const full = capacityOf(entries, max).used >= max;
    const at = new Date().toISOString();
    if (full) {
      if (job.check?.state !== 'queued') {
        await ctx.store.update(id, (j) => ({ ...j, check: { state: 'queued', exitCode: null, durationMs: null, at, summary: '', runner: holdWhileQueued ? runner : null } }));
        ctx.changed(id);
      }
      return false;
    }
    await ctx.store.update(id, (j) => ({ ...j, check: { state: 'running', exitCode: null, durationMs: null, at, summary: '', runner } }));
    ctx.changed(id);
    return true;
  });
}

/**
 * `claimSlot`, and with `waitForSlot` again until it is claimed: a slot frees with a write to the
 * store (an agent ends, a cleanup completes), which wakes the wait; it also looks again every
 * SLOT_RECHECK_MS (a worker that died writes nothing until a reader judges it). It listed the whole
 * store every second while it waited. False when the slot was not claimed and it does not wait.
 */
async function claimSlotWaiting(ctx: OperationContext, id: string, runner: NonNullable<Check['runner']>, opts: RunCheckOptions): Promise<boolean> {
  const watcher = opts.waitForSlot ? ctx.store.watch({ reconcileIntervalMs: 0 }) : undefined;
  const interrupt = abortedSoon(opts.abort);
  try {
    for (let told = false; ; told = true) {
      // Begun before the claim's listing: a slot freed between the two is not missed.
      const changed = watcher ? waitForChange(watcher, SLOT_RECHECK_MS) : undefined;
      const claimed = await claimSlot(ctx, id, runner, opts.waitForSlot).catch((err: unknown) => {
        changed?.cancel();
        throw err;
      });
      if (claimed) changed?.cancel();
      if (claimed || !changed) return claimed;
      if (!told) opts.onWaiting?.();
      const triedAt = Date.now();
      const interrupted = await Promise.race([changed.done.then(() => false), interrupt]);
      changed.cancel();
      if (interrupted) throw await notRunAfterInterrupt(ctx, id);
      // Many agents' writes in a row: no more than one look per SLOT_MIN_GAP_MS.
      await sleep(SLOT_MIN_GAP_MS - (Date.now() - triedAt));
    }
  } finally {
    watcher?.dispose();
  }
}

/** Resolves true once `signal` aborts (never, without one). */
function abortedSoon(signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return new Promise<boolean>(() => undefined);
  if (signal.aborted) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(true), { once: true }));
}

/** A check interrupted while it waited for a slot: recorded as not run, and the sentence to end with. */
function notRunAfterInterrupt(ctx: OperationContext, id: string): Promise<Error> {
  return notRun(ctx, id, `The check of agent ${id} was interrupted while it waited for a capacity slot; it did not run.`);
}

/** A check that did not run, recorded failed with `why` (so a leader does not try it again on every pass), and the error saying it. */
async function notRun(ctx: OperationContext, id: string, why: string): Promise<Error> {
  const at = new Date().toISOString();
  // The record keeps 4,000 characters of a summary (two long paths can say more).
  await ctx.store.update(id, (j) => ({ ...j, check: { state: 'failed', exitCode: null, durationMs: null, at, summary: why.slice(0, 4000), runner: null } }));
  ctx.changed(id);
  return failure(why);
}

/**
 * A check in hand of a process that is suspended (SIGSTOP): it holds its slot and finishes nothing
 * until continued, which "already running" did not say (bug 133).
 */
async function refuseSuspendedRunner(job: JobRecord): Promise<void> {
  const c = job.check;
  if (!c?.runner || (c.state !== 'running' && c.state !== 'queued') || !(await isSuspended(c.runner))) return;
  const pid = c.runner.pid;
  throw usageError(`A check of agent ${job.id} is already ${c.state === 'running' ? 'running' : 'waiting for a slot'} in process ${pid}, which is suspended (SIGSTOP): kill -CONT ${pid} resumes it.`);
}

/**
 * Runs the check of agent `id` and records its result. With `waitForSlot` it waits for capacity and
 * returns the recorded check; without, a full capacity leaves it queued and returns null.
 */
export function runCheck(ctx: OperationContext, id: string, opts: RunCheckOptions, command?: CheckCommand): Promise<Check | null> {
  if (ctx.closing.isClosing) return Promise.reject(failure(`The check of agent ${id} was not started: this window is closing.`));
  return ctx.closing.run(opts.abort, (abort) => checkNow(ctx, id, { ...opts, abort }, command));
}

async function checkNow(ctx: OperationContext, id: string, opts: RunCheckOptions, command?: CheckCommand): Promise<Check | null> {
  const { store } = ctx;
  const job = await store.read(id);
  await refuseSuspendedRunner(job);
  const blocker = checkBlocker(job);
  if (blocker) throw usageError(blocker);
  // A check's git commands (and the rest) belong in the agent's worktree, never a repository above it.
  const worktreeProblem = await runInWorktreeProblem(job);
  if (worktreeProblem) throw await notRun(ctx, id, `The check of agent ${id} cannot run: ${worktreeProblem}; nothing was run.`);
  const resolved = command ?? (await requireCheckCommand(job, { ...opts, home: store.home }));
  const runner = me();
  if (!(await claimSlotWaiting(ctx, id, runner, opts))) return null;
  let check: Check;
  const current = await store.read(id);
  await store.appendTimeline(id, { generation: current.lifecycle.generation, type: 'check-started', message: resolved.command });
  const env = agentCommandEnv(ctx.env, current);
  // The summary quotes the check's output: the agent's secrets in the environment it ran with go, as from the agent's log.
  const redactor = redactorForCommandEnv(env, current.settings.secretEnvNames);
  try {
    // The agent's work is made durable before the check can touch it; what the check changed is said.
    const guard = await guardWorktree(current.repo, current.worktree!, id, current.branch).catch((err: unknown) => {
      throw failure(`the agent's work in its worktree could not be saved before it (${describeError(err)}), so nothing was run`);
    });
    const result = await runCheckProcess({
      command: resolved.command,
      cwd: current.worktree!,
      env,
      marker: checkRunMarker(id, runner),
      graceMs: Math.min(current.settings.stopGraceMs, 5000),
      timeoutMs: resolved.timeoutSeconds * 1000,
      abort: opts.abort,
    });
    const passed = result.exitCode === 0 && !result.timedOut && !result.aborted;
    const closed = result.aborted && ctx.closing.isClosing;
    const changedWorktree = await worktreeChangesByCheck(guard);
    const summary = redactor.redact(`${result.tail}${howItEnded(result, resolved.timeoutSeconds, closed)}${changedWorktree}`.trim());
    // An attempt's check is the leader's to run: the next leader runs it again (a person's is theirs to run again).
    check = closed && current.group
      ? { state: 'queued', exitCode: null, durationMs: null, at: new Date().toISOString(), summary, runner: null }
      : { state: passed ? 'passed' : 'failed', exitCode: result.exitCode, durationMs: result.durationMs, at: new Date().toISOString(), summary, runner: null };
  } catch (err) {
    check = { state: 'failed', exitCode: null, durationMs: null, at: new Date().toISOString(), summary: `The check could not run: ${describeError(err)}`, runner: null };
  }
  const recorded = await store.update(id, (j) => ({ ...j, check }));
  await store.appendTimeline(id, { generation: current.lifecycle.generation, type: `check-${check.state}`, message: check.exitCode !== null ? `exit ${check.exitCode}` : undefined });
  ctx.changed(id);
  ctx.log(`check of ${id} ${check.state}${check.exitCode !== null ? ` (exit ${check.exitCode})` : ''}`);
  return recorded.check ?? check;
}

/** The line the summary ends with when the check did not pass (nothing when it did). */
function howItEnded(result: CheckProcessResult, timeoutSeconds: number, windowClosed: boolean): string {
  if (result.timedOut) return `\n(check timed out after ${timeoutSeconds} s and was ended)`;
  if (result.aborted && windowClosed) return '\n(the window running the check closed; the check was ended, with everything it started)';
  if (result.aborted) return '\n(check interrupted and ended, with everything it started)';
  if (result.exitCode === 0) return '';
  return result.signal ? `\n(check killed by ${result.signal})` : `\n(check exited with ${result.exitCode})`;
}

export { findCheckCommand };
