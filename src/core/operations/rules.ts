/**
 * What a person may do with an agent, decided once from its record and used
 * by every door: the operations (which refuse with the reason), the CLI, the
 * commands' pickers and the tree's context menu (`contextValue`
 * capabilities). Pure: no file system, no clock — the tree calls these on
 * every render. Each `…Blocker` says why not in one sentence (null: allowed);
 * each `can…` is its yes/no.
 */
import { isTerminalState, type JobRecord, type LifecycleState } from '../store/schema';

/** An ended execution: the agent's main process is gone. */
export const ENDED_STATES: readonly LifecycleState[] = ['completed', 'failed', 'cancelled', 'orphaned'];

const LIVE_STATES: readonly LifecycleState[] = ['starting', 'running', 'waiting'];

function isEnded(job: JobRecord): boolean {
  return isTerminalState(job.lifecycle.state);
}

export function attachBlocker(job: JobRecord): string | null {
  if (LIVE_STATES.includes(job.lifecycle.state)) return null;
  return `Agent ${job.id} is ${job.lifecycle.state}; only a starting, running or waiting agent has a terminal to attach to.`;
}

export function sendBlocker(job: JobRecord): string | null {
  const state = job.lifecycle.state;
  if (state === 'running' || state === 'waiting') return null;
  return `Agent ${job.id} is ${state}; text can be sent only to a running or waiting agent.`;
}

export function stopBlocker(job: JobRecord): string | null {
  const state = job.lifecycle.state;
  if (state === 'cancelling') return `Agent ${job.id} is already stopping.`;
  if (isEnded(job)) return `Agent ${job.id} has already ended (${state}).`;
  return null;
}

/** The record's half of the rule; the operation also checks that the worktree folder still exists. */
export function retryBlocker(job: JobRecord): string | null {
  const state = job.lifecycle.state;
  if (!isEnded(job)) return `Agent ${job.id} is ${state}; only an ended agent can be retried.`;
  if (job.cleanup !== null) return `Agent ${job.id} has been cleaned up; it cannot be retried.`;
  if (job.worktree === null) return `Agent ${job.id} has no worktree to retry in.`;
  return null;
}

/** A first cleanup (a running agent is stopped first); one begun already is resumed by Retry Cleanup Now. */
export function cleanupBlocker(job: JobRecord): string | null {
  if (job.cleanup === null) return null;
  if (job.cleanup.phase === 'complete') return `Agent ${job.id} has already been cleaned up.`;
  return `Agent ${job.id}'s cleanup has begun (${job.cleanup.phase}); Retry Cleanup Now runs it again.`;
}

export function retryCleanupBlocker(job: JobRecord): string | null {
  if (job.cleanup === null) return `Agent ${job.id} has no cleanup to retry.`;
  if (job.cleanup.phase !== 'incomplete') return `Agent ${job.id}'s cleanup is ${job.cleanup.phase}, not incomplete.`;
  return null;
}

/** "Clean Up Anyway": only for a cleanup that stopped because something would be lost. */
export function consentBlocker(job: JobRecord): string | null {
  if (job.cleanup?.awaitingConsent) return null;
  return `Agent ${job.id}'s cleanup is not waiting for a decision.`;
}

/** Restore needs a snapshot; it can run whenever one was captured. */
export function restoreBlocker(job: JobRecord): string | null {
  if (job.evidence?.snapshotRef) return null;
  return `Agent ${job.id} has no saved evidence to restore from; it has not been cleaned up.`;
}

/** A review is typed into a running or waiting agent, or becomes the prompt of a retry of an ended one. */
export function reviewBlocker(job: JobRecord): string | null {
  if (sendBlocker(job) === null || retryBlocker(job) === null) return null;
  return `Agent ${job.id} is ${job.lifecycle.state}${job.cleanup ? ' and cleaned up' : ''}; a review goes to a running or waiting agent, or to a retry of an ended one.`;
}

export const canAttach = (job: JobRecord): boolean => attachBlocker(job) === null;
export const canSend = (job: JobRecord): boolean => sendBlocker(job) === null;
export const canStop = (job: JobRecord): boolean => stopBlocker(job) === null;
export const canRetry = (job: JobRecord): boolean => retryBlocker(job) === null;
export const canCleanUp = (job: JobRecord): boolean => cleanupBlocker(job) === null;
export const canRetryCleanup = (job: JobRecord): boolean => retryCleanupBlocker(job) === null;
export const canCleanUpAnyway = (job: JobRecord): boolean => consentBlocker(job) === null;
export const canSendReview = (job: JobRecord): boolean => reviewBlocker(job) === null;
export const canRestore = (job: JobRecord): boolean => restoreBlocker(job) === null;
/** The worktree is still there to open, diff or copy from. */
export const hasLiveWorktree = (job: JobRecord): boolean => job.worktree !== null && job.cleanup?.phase !== 'complete';
