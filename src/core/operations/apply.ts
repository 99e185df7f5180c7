/** Apply to Workspace: the agent's whole diff against the base — commits and uncommitted work — as uncommitted changes in the main worktree. */
import { usageError } from '../common/errors';
import { applyCommitToWorktree, currentBranch, runGit, worktreeStateCommit } from '../git';
import { detachedHeadPositions } from '../git/detachedHeadReflog';
import { refuseDroppedBase } from './droppedBaseCheck';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { agentBranchTip, linkedWorktree, prepareAgentWork, type LandingChoices } from './landingPrep';
import { isLandingEntry, recordLanding } from './recordLanding';
import { landBlocker } from './rules';

export interface ApplyReport {
  job: JobRecord;
  into: string;
  files: string[];
}

/**
 * Commits the checked-out branch lost since the agent started are not the agent's work. A detached HEAD too, read
 * from the positions HEAD held while detached (git/detachedHeadReflog.ts: the person's reset, then `checkout --detach`,
 * is still a drop; a HEAD detached at a branch that never held the start is not); its way out names HEAD's
 * commit, as `HEAD` in the agent's worktree would be the agent's own. Returns the tip judged (`source`: the one landed).
 */
async function refuseDroppedForApply(job: JobRecord, source?: string): Promise<string | null> {
  const checkedOut = await currentBranch(job.repo);
  if (checkedOut !== null) return refuseDroppedBase(job, checkedOut, 'applying', { how: 'strict', source });
  const [head, positions] = await Promise.all([
    runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: job.repo, allowFailure: true }),
    detachedHeadPositions(job.repo),
  ]);
  if (head.code !== 0 || positions === null) return null;
  const onto = head.stdout.trim().slice(0, 12);
  return refuseDroppedBase(job, 'the detached HEAD', 'applying', { how: 'strict', ref: 'HEAD', positions, onto, source });
}

export async function applyLocked(ctx: OperationContext, id: string, choices: Pick<LandingChoices, 'running'>): Promise<ApplyReport> {
  let job = await ctx.store.read(id);
  const blocked = landBlocker(job);
  if (blocked) throw usageError(blocked);
  // Refused before the agent is stopped; asked again of the tip that lands when the stop moved it (bug 215).
  const judged = await refuseDroppedForApply(job);
  job = await prepareAgentWork(ctx.store, job, choices, { includesUncommitted: true, log: (m) => ctx.log(m) });
  const worktree = await linkedWorktree(job);
  const source = worktree !== null ? await worktreeStateCommit(worktree, `Work of Paddock agent ${job.id} as it is on disk`, (m) => ctx.log(m)) : await agentBranchTip(job);
  if (source !== judged) await refuseDroppedForApply(job, source);
  const generation = job.lifecycle.generation;
  // Written before the first file: an apply killed part-way leaves this trace in the agent's history, and
  // the next apply's refusal of the files it wrote names it. Nothing is ever recorded as landed from the
  // files alone (a match judged from the disk said "applied" of work that was not all there).
  // A history that cannot be written (a full disk) does not stop the apply.
  const beforeWrite = () => ctx.store.appendTimeline(id, { generation, type: 'apply-started', message: `apply into ${job.repo} started` }).catch(() => undefined);
  // A failed apply whose writes were all put back finished too: the files in the way next time are the person's.
  const afterUndo = () => ctx.store.appendTimeline(id, { generation, type: APPLY_UNDONE, message: `apply into ${job.repo} failed; its files were put back` }).catch(() => undefined);
  const earlierStopped = await applyLeftUnfinished(ctx, id);
  const files = await applyCommitToWorktree(job.repo, source, `Agent ${job.id}'s work`, { beforeWrite, earlierStopped, afterUndo });
  ctx.log(`agent ${id}: applied ${files.length} file(s) to ${job.repo}`);
  job = await recordLanding(ctx.store, id, { kind: 'apply', into: job.repo, commit: null, url: null, branchHead: null });
  return { job, into: job.repo, files };
}

/** The history's word for an apply that failed and put back every file it had begun to write. */
const APPLY_UNDONE = 'apply-undone';

/**
 * Whether the agent's history has an `apply-started` with no apply's landing, nor its undoing, after
 * it: only then may a refusal say "an earlier apply was stopped" (else the changes in the way are the
 * person's). A history that cannot be read says no.
 */
async function applyLeftUnfinished(ctx: OperationContext, id: string): Promise<boolean> {
  const timeline = await ctx.store.readTimeline(id).catch(() => []);
  const started = timeline.map((e) => e.type).lastIndexOf('apply-started');
  return started >= 0 && !timeline.slice(started + 1).some((e) => e.type === APPLY_UNDONE || isLandingEntry(e, 'apply'));
}
