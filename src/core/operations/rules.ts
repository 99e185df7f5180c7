/**
 * What a person may do with an agent, decided once from its record and used
 * by every door: the operations (which refuse with the reason), the CLI, the
 * commands' pickers and the tree's context menu (`contextValue`
 * capabilities). Pure: no file system, no clock — the tree calls these on
 * every render. Each `…Blocker` says why not in one sentence (null: allowed);
 * each `can…` is its yes/no.
 */
import { isTerminalState, type Cleanup, type JobRecord, type LifecycleState } from '../store/schema';

/** An ended execution: the agent's main process is gone. */
export const ENDED_STATES: readonly LifecycleState[] = ['completed', 'failed', 'cancelled', 'orphaned'];

function isEnded(job: JobRecord): boolean {
  return isTerminalState(job.lifecycle.state);
}

/**
 * Every agent with a terminal: a stopping one still has its terminal until the agent exits (as a tmux
 * pane can be attached until it closes), and a person may want to watch it shut down or answer it.
 */
export function attachBlocker(job: JobRecord): string | null {
  if (!isEnded(job) && job.lifecycle.state !== 'queued') return null;
  return `Agent ${job.id} is ${job.lifecycle.state}; only a starting, running, waiting or stopping agent has a terminal to attach to.`;
}

/** A queued agent has no terminal yet, so no screen; every other one has a live or a saved one. */
export function screenBlocker(job: JobRecord): string | null {
  if (job.lifecycle.state !== 'queued') return null;
  return `Agent ${job.id} is queued (waiting for a free agent slot) and has no screen yet.`;
}

/**
 * A starting agent is about to have a terminal (the connection waits for its socket), so it may be
 * sent to; not while the worktree's setup command runs first, which may take minutes.
 */
export function sendBlocker(job: JobRecord): string | null {
  const state = job.lifecycle.state;
  if (state === 'running' || state === 'waiting') return null;
  if (state === 'starting' && job.setup?.state === 'running') return `Agent ${job.id} is setting up its worktree; text can be sent once the agent runs.`;
  if (state === 'starting') return null;
  return `Agent ${job.id} is ${state}; text can be sent only to a running or waiting agent.`;
}

/**
 * Something of the agent may still run: its execution, a check in its worktree, or what an ended
 * agent left running (listed when `endLeftoversOnExit` is off). Stop ends all three, so each offers it.
 */
export function hasRunningWork(job: JobRecord): boolean {
  return !isEnded(job) || job.check?.state === 'running' || (job.leftovers?.length ?? 0) > 0;
}

export function stopBlocker(job: JobRecord): string | null {
  const state = job.lifecycle.state;
  if (state === 'cancelling') return `Agent ${job.id} is already stopping.`;
  if (!hasRunningWork(job)) return `Agent ${job.id} has already ended (${state}).`;
  return null;
}

/** The repository's worktree setup failed, and the agent never ran: its worktree is kept for a retry. */
export function setupFailed(job: JobRecord): boolean {
  return job.lifecycle.state === 'failed' && job.lifecycle.startedAt === null && job.setup?.state === 'failed';
}

/**
 * The launch itself failed (no worktree, no worker; the agent never ran): start and retry throw the
 * reason. A failed setup is not a failed launch: the worker ran the repository's setup command, which
 * failed, and whether it failed before start returned depends only on how fast it failed.
 */
export function failedToLaunch(job: JobRecord): boolean {
  return job.lifecycle.state === 'failed' && job.lifecycle.startedAt === null && !setupFailed(job);
}

/**
 * "Agent X is being cleaned up (incomplete)" while a cleanup has begun and not completed, else null. Its
 * worktree is on its way out: whatever would work in it (retry, check, update, landing, keeping it)
 * waits, since the cleanup ends what runs there and removes it.
 */
function cleanupUnderWay(job: JobRecord): string | null {
  const c = job.cleanup;
  return c && c.phase !== 'complete' ? `Agent ${job.id} is being cleaned up (${c.phase})` : null;
}

/** The record's half of the rule; the operation also checks that the worktree folder still exists. */
export function retryBlocker(job: JobRecord): string | null {
  const state = job.lifecycle.state;
  if (!isEnded(job)) return `Agent ${job.id} is ${state}; only an ended agent can be retried.`;
  const begun = cleanupUnderWay(job);
  if (begun) return `${begun}; it cannot be retried.`;
  if (job.cleanup !== null) return `Agent ${job.id} has been cleaned up; it cannot be retried.`;
  if (job.worktree === null) return `Agent ${job.id} has no worktree to retry in.`;
  if (job.check?.state === 'running') return `A check of agent ${job.id} is running in its worktree; wait for it or stop it first.`;
  // Its worker ends them in sessions a new execution's could be given; once it is gone (a reader marks it),
  // nothing waits: the lead coordinator or Stop ends them by identity.
  const left = job.leftovers?.length ?? 0;
  if (left > 0 && job.leftoversEnder && !job.leftoversEnder.gone) {
    return `The worker of agent ${job.id} is still ending ${left === 1 ? 'a process' : `${left} processes`} it left running; retry once ${left === 1 ? 'it has' : 'they have'} ended, or stop ${left === 1 ? 'it' : 'them'} first.`;
  }
  return null;
}

/**
 * A first cleanup (a running agent is stopped first); one begun already is resumed by Retry Cleanup
 * Now, whose rule (retryCleanupBlocker) takes every begun cleanup this one refuses.
 */
export function cleanupBlocker(job: JobRecord): string | null {
  if (job.cleanup === null) return null;
  if (job.cleanup.phase === 'complete') return `Agent ${job.id} has already been cleaned up.`;
  return `Agent ${job.id}'s cleanup has begun (${job.cleanup.phase}); Retry Cleanup Now runs it again.`;
}

/**
 * Cleaning up after a landing without asking (`paddock.cleanUpAfterLanding: always`): only an agent
 * that has ended. One landed as it is while it runs was to go on (the person chose that); stopping
 * it and removing its worktree would undo the choice, so it is offered Clean Up instead.
 */
export function cleanUpUnaskedBlocker(job: JobRecord): string | null {
  const blocked = cleanupBlocker(job);
  if (blocked) return blocked;
  if (hasRunningWork(job)) return `Agent ${job.id} is still running (it was landed as it is and goes on); clean it up when it has finished.`;
  return null;
}

/**
 * Retry Cleanup Now: any begun cleanup not complete, whatever phase it stopped in. One interrupted
 * mid-phase (its process died while capturing or removing) keeps that phase, and runs again from it
 * like an incomplete one; one running right now is run again after it (the agent's lock), which finds
 * it complete. The operation and the Clean Up refusal ("Retry Cleanup Now runs it again") use this.
 */
export function retryCleanupBlocker(job: JobRecord): string | null {
  if (job.cleanup === null) return `Agent ${job.id} has no cleanup to retry.`;
  if (job.cleanup.phase === 'complete') return `Agent ${job.id} has already been cleaned up.`;
  return null;
}

/**
 * A cleanup held at its first stage by the worktree's teardown command (it failed, and is retried):
 * "Clean Up Anyway" runs it once more and skips it if it fails, the capture still in full.
 */
export function teardownHoldsCleanup(job: JobRecord): boolean {
  const c = job.cleanup;
  return c?.phase === 'incomplete' && c.stage === 'terminating' && c.failures > 0 && !!job.settings.worktree?.teardown && !c.teardownDone && !c.teardownSkipped;
}

/**
 * The cleanup waits for the person, not for a timer: for consent to lose something (Clean Up Anyway),
 * or for a retry once they fixed what made its capture fail the same way every time (Retry Cleanup Now).
 */
export function cleanupWaitsForPerson(cleanup: Cleanup | null): boolean {
  return cleanup !== null && cleanup.phase !== 'complete' && (cleanup.awaitingConsent === true || cleanup.awaitingRetry === true);
}

/** "Clean Up Anyway": for a cleanup that stopped because something would be lost, or that a failing teardown holds. */
export function consentBlocker(job: JobRecord): string | null {
  if (job.cleanup?.awaitingConsent || teardownHoldsCleanup(job)) return null;
  return `Agent ${job.id}'s cleanup is not waiting for a decision.`;
}

/** Restore needs a snapshot; it can run whenever one was captured. */
export function restoreBlocker(job: JobRecord): string | null {
  if (job.evidence?.snapshotRef) return null;
  return `Agent ${job.id} has no saved evidence to restore from; it has not been cleaned up.`;
}

/**
 * A review is typed into a running or waiting agent, or becomes the prompt of a retry of an ended one.
 * Not of an ended agent with no resume arguments (its profile gives none, or it runs a command given
 * after `--`): a retry runs it again from scratch, which would read the review without the work it
 * reviews, while the person believed it went on where it stopped (bug 179). The row's menu and the
 * palette's picker offer no send the operation would refuse.
 */
export function reviewBlocker(job: JobRecord): string | null {
  if (sendBlocker(job) === null) return null;
  if (retryBlocker(job) === null) {
    if (job.settings.resumeArgs !== null) return null;
    return `Agent ${job.id} has ended and has no resume arguments (its profile gives none, or it was started with a command of its own): a retry would start it afresh without its earlier conversation, so the review was not sent; retry it, then send the review to the new run.`;
  }
  const cleanup = !job.cleanup ? '' : job.cleanup.phase === 'complete' ? ' and cleaned up' : ' and being cleaned up';
  return `Agent ${job.id} is ${job.lifecycle.state}${cleanup}; a review goes to a running or waiting agent, or to a retry of an ended one.`;
}

/**
 * Landing (merge, squash, rebase, apply, pull request) needs the agent's
 * branch: not before the agent has one, not while a cleanup is removing it,
 * not after a cleanup deleted it. (The operation also checks the branch exists in git.)
 */
export function landBlocker(job: JobRecord): string | null {
  if (job.branch === null || job.worktree === null) return `Agent ${job.id} has no branch of its own to land.`;
  if (job.lifecycle.state === 'queued') return `Agent ${job.id} has not started yet; there is nothing to land.`;
  const begun = cleanupUnderWay(job);
  if (begun) return `${begun}; land it after the cleanup finishes.`;
  if (branchDeletedByCleanup(job)) return `Agent ${job.id}'s branch was deleted by its cleanup; restore it first to land its work.`;
  return null;
}

/** The cleanup deleted the agent's branch (and no restore has brought it back since). */
export function branchDeletedByCleanup(job: JobRecord): boolean {
  return /deleted/.test(job.cleanup?.branchOutcome ?? '');
}

/** Copy Branch Name: the agent has a branch, and its cleanup did not delete it. */
export function hasBranch(job: JobRecord): boolean {
  return job.branch !== null && !branchDeletedByCleanup(job);
}

/** Update from Base works in the agent's worktree, which must still be there. */
export function updateBlocker(job: JobRecord): string | null {
  if (job.branch === null || !hasLiveWorktree(job)) return `Agent ${job.id} has no worktree to update.`;
  if (job.lifecycle.state === 'queued') return `Agent ${job.id} has not started yet.`;
  const begun = cleanupUnderWay(job);
  if (begun) return `${begun}; its worktree cannot be updated.`;
  return null;
}

/** Remove from List: only an agent whose cleanup is complete (nothing of it is left but its record and evidence). */
export function forgetBlocker(job: JobRecord): string | null {
  if (job.cleanup?.phase === 'complete') return null;
  return `Agent ${job.id} has not been cleaned up; clean it up before removing it from the list.`;
}

/** Landing an agent that is still running takes a decision: stop it first, or land what is there now. */
export function isLive(job: JobRecord): boolean {
  return !isEnded(job) && job.lifecycle.state !== 'queued';
}

/** Run Check: an ended agent whose worktree is still there, with no check of it under way. */
export function checkBlocker(job: JobRecord): string | null {
  if (!isEnded(job)) return `Agent ${job.id} is ${job.lifecycle.state}; a check runs once the agent has ended.`;
  if (!hasLiveWorktree(job)) return `Agent ${job.id} has no worktree to check; it has been cleaned up.`;
  const begun = cleanupUnderWay(job);
  if (begun) return `${begun}; a check cannot run in a worktree that is being removed.`;
  if (job.check?.state === 'running') return `A check of agent ${job.id} is already running.`;
  return null;
}

/** Keep This One: an attempt of a group whose worktree is still there. */
export function keepBlocker(job: JobRecord): string | null {
  if (!job.group) return `Agent ${job.id} is not one of several attempts.`;
  if (!hasLiveWorktree(job)) return `Agent ${job.id} has been cleaned up; restore it before keeping it.`;
  const begun = cleanupUnderWay(job);
  if (begun) return `${begun}; it cannot be kept (its work is saved: restore it once the cleanup finishes).`;
  return null;
}

export const canAttach = (job: JobRecord): boolean => attachBlocker(job) === null;
export const canSend = (job: JobRecord): boolean => sendBlocker(job) === null;
export const canStop = (job: JobRecord): boolean => stopBlocker(job) === null;

/** A record that cannot be read can be stopped (by its marker) while its worker still holds its execution. */
export const canStopUnreadable = (entry: { workerRunning?: true }): boolean => entry.workerRunning === true;
/** …and removed from the list (its whole folder kept, forgetUnreadable.ts) once its worker no longer runs. */
export const canForgetUnreadable = (entry: { workerRunning?: true }): boolean => entry.workerRunning !== true;
export const canRetry = (job: JobRecord): boolean => retryBlocker(job) === null;
export const canCleanUp = (job: JobRecord): boolean => cleanupBlocker(job) === null;
export const canCleanUpUnasked = (job: JobRecord): boolean => cleanUpUnaskedBlocker(job) === null;
export const canRetryCleanup = (job: JobRecord): boolean => retryCleanupBlocker(job) === null;
export const canCleanUpAnyway = (job: JobRecord): boolean => consentBlocker(job) === null;
export const canSendReview = (job: JobRecord): boolean => reviewBlocker(job) === null;
export const canRestore = (job: JobRecord): boolean => restoreBlocker(job) === null;
export const canLand = (job: JobRecord): boolean => landBlocker(job) === null;
export const canUpdate = (job: JobRecord): boolean => updateBlocker(job) === null;
export const canForget = (job: JobRecord): boolean => forgetBlocker(job) === null;
export const canCheck = (job: JobRecord): boolean => checkBlocker(job) === null;
export const canKeep = (job: JobRecord): boolean => keepBlocker(job) === null;
/** The worktree is still there to open, diff or copy from. */
export const hasLiveWorktree = (job: JobRecord): boolean => job.worktree !== null && job.cleanup?.phase !== 'complete';
