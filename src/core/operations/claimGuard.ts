/**
 * Before an operation removes or re-creates what a record names — cleanup's removal of the worktree
 * and deletion of the branch, restore — it makes sure that is the agent's alone (bug 48). The
 * store's schema already holds every record to the names Paddock gives its own id
 * (store/agentClaims.ts), so no two readable records name the same worktree, branch or snapshot ref;
 * what a single record cannot show is checked here: git's own registration of the worktree must not
 * have another agent's branch checked out there (another agent's worktree moved to this one's path,
 * say), and a restore's target (any folder, with `--to`) must be no other record's worktree — asked
 * by name as a landing asks whose worktree its target is in (`recordOfWorktree`), since the schema
 * names each record's worktree after its id. Otherwise the operation is refused in one sentence,
 * before it changes anything. Nothing here lists the store but the rare case below: a list costs
 * ~0.2 s at 1,000 records.
 */
import { failure } from '../common/errors';
import { listWorktrees } from '../git';
import { resolvedPath } from '../git/worktreeRegistration';
import { isAgentBranch } from '../store/agentClaims';
import type { JobStore } from '../store';
import type { JobRecord } from '../store/schema';
import { okJobs } from './context';
import { recordOfWorktree } from './liveAgentTarget';

/**
 * Throws the one sentence when a restore of `job` into `folder` would fill another record's worktree
 * (a `--to` folder; the schema already keeps two records from naming one worktree, branch or ref), or
 * a worktree git has with another agent's branch.
 */
export async function assertOwnClaims(store: JobStore, job: JobRecord, what: string, folder: string): Promise<void> {
  // recordOfWorktree resolves it through its parent as git records it: a `--to` folder does not exist yet.
  const other = await recordOfWorktree(store, folder, job.id);
  if (other) {
    throw failure(`Will not ${what} agent ${job.id}: agent ${other.id}'s record claims the worktree ${folder} too; nothing was changed.`, 'CLAIMED_BY_ANOTHER');
  }
  await assertRegisteredBranch(store, job, what, folder);
}

/**
 * git's registration of the worktree at `folder` must not have another live agent's branch checked
 * out: that worktree is the other agent's, whatever the record says (moved here with `git worktree
 * move`, say). A branch no readable record claims, one of a cleaned agent (its worktree is gone; an
 * agent may build on its kept branch), another branch of the person's, or a detached HEAD is the
 * agent's own doing in its worktree, and the capture keeps it. The store is listed only in that
 * rare case: a registered branch named like an agent's that is not this one's.
 */
export async function assertRegisteredBranch(store: JobStore, job: JobRecord, what: string, folder: string): Promise<void> {
  const entries = await listWorktrees(job.repo).catch(() => null);
  const target = resolvedPath(folder);
  const registered = entries?.find((e) => resolvedPath(e.path) === target);
  const branch = registered?.branch ?? null;
  if (branch === null || branch === job.branch || !isAgentBranch(branch)) return;
  const owner = okJobs(await store.list()).find((j) => j.id !== job.id && j.branch === branch && resolvedPath(j.repo) === resolvedPath(job.repo) && j.cleanup?.phase !== 'complete');
  if (!owner) return;
  throw failure(`Will not ${what} agent ${job.id}: git has ${folder} checked out on ${branch}, the branch of agent ${owner.id}, whose worktree it is; it is left as it is.`, 'CLAIMED_BY_ANOTHER');
}
