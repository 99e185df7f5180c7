/**
 * A landing moves its target where it is checked out by a fast-forward that writes the files of
 * that worktree. When the worktree is an agent's that still runs (another agent's branch given to
 * `--into`, or a branch an agent checked out in its own worktree), those files would change under
 * the agent as it works: refused like a target checked out with uncommitted changes, until the
 * agent has ended.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import type { JobStore } from '../store';
import { JOB_ID_PATTERN } from '../store/schema';
import { isLive } from './rules';

/** Throws the one sentence when `worktree` (where `branch` is checked out) is the worktree of an agent that has not ended. */
export async function refuseLiveAgentWorktree(store: JobStore, branch: string, worktree: string): Promise<void> {
  // Paddock names an agent's worktree after its id (agentClaims.ts): any other folder is no agent's.
  const id = path.basename(worktree);
  if (!JOB_ID_PATTERN.test(id)) return;
  const entry = await store.tryRead(id);
  if (!entry.ok || entry.job.worktree === null || !isLive(entry.job)) return;
  const [own, target] = await Promise.all([realOrSame(entry.job.worktree), realOrSame(worktree)]);
  if (own !== target) return;
  throw failure(
    `Branch ${branch} is checked out in ${worktree}, the worktree of agent ${id}, which is still ${entry.job.lifecycle.state}; stop it first (paddock stop ${id}) — nothing was changed.`,
    'TARGET_DIRTY',
  );
}

const realOrSame = (p: string): Promise<string> => fs.realpath(p).catch(() => p);
