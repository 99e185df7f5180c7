/**
 * A landing moves its target where it is checked out by a fast-forward that writes the files of
 * that worktree. When the worktree is an agent's that still runs (another agent's branch given to
 * `--into`, or a branch an agent checked out in its own worktree), those files would change under
 * the agent as it works: refused like a target checked out with uncommitted changes, until the
 * agent has ended.
 */
import * as path from 'node:path';
import { failure } from '../common/errors';
import { resolvedPathOf } from '../git/worktreeRegistration';
import type { JobStore } from '../store';
import { JOB_ID_PATTERN, type JobRecord } from '../store/schema';
import { isLive } from './rules';

/** Throws the one sentence when `worktree` (where `branch` is checked out) is the worktree of an agent that has not ended. */
export async function refuseLiveAgentWorktree(store: JobStore, branch: string, worktree: string): Promise<void> {
  const owner = await recordOfWorktree(store, worktree);
  if (owner === null || !isLive(owner)) return;
  throw failure(
    `Branch ${branch} is checked out in ${worktree}, the worktree of agent ${owner.id}, which is still ${owner.lifecycle.state}; stop it first (paddock stop ${owner.id}) — nothing was changed.`,
    'TARGET_DIRTY',
  );
}

/**
 * The readable record (other than `except`'s) whose worktree is `folder`, given by any path to it;
 * null when none is. Read by name, never by listing the store: the schema holds each record's
 * worktree to a folder named after its id (store/agentClaims.ts), so only the record of the id
 * the folder — or the folder it resolves to — is named after can claim it.
 */
export async function recordOfWorktree(store: JobStore, folder: string, except?: string): Promise<JobRecord | null> {
  // Both sides resolved the same way, through the parent when a folder is gone (as git records it).
  const target = await resolvedPathOf(folder);
  for (const id of new Set([path.basename(folder), path.basename(target)])) {
    if (id === except || !JOB_ID_PATTERN.test(id)) continue;
    const entry = await store.tryRead(id);
    if (entry.ok && entry.job.worktree !== null && (await resolvedPathOf(entry.job.worktree)) === target) return entry.job;
  }
  return null;
}

