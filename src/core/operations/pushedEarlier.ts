/**
 * A `paddock pr` killed after its push and before its record: the branch is on the remote, the
 * record says nothing. Like an apply (apply.ts), the pull request writes a trace in the agent's
 * history before it pushes, and a line when the push fails; a later run that finds nothing left to
 * propose because the remote's base (as last fetched) has every commit (the pull request was merged
 * meanwhile) records the earlier one when that trace names this very tip and remote, no failure and
 * no landing of any kind came after it, and the remote-tracking branch says the push went through
 * (or is gone: the host deleted the merged branch and a fetch pruned it). A push the person made by
 * hand leaves no trace: nothing is recorded for it, and the refusal is as before. Still taken for
 * one: a run killed before its push went through, whose tip the person then pushed by hand (nothing
 * is lost: the remote's base has every commit, and cleanup takes nothing from a pull request's record).
 */
import { runGit } from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { isLandingEntry } from './recordLanding';

/** The history's word for a pull request about to push. */
const PR_STARTED = 'pr-started';
/** The history's word for a push that failed: the trace before it proves nothing. */
const PR_PUSH_FAILED = 'pr-push-failed';

function startedMessage(branch: string, remote: string, head: string): string {
  return `push of ${branch} at ${head} to ${remote} started`;
}

/** Written before the push; a history that cannot be written (a full disk) does not stop the pull request. */
export async function notePushStarting(ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> {
  await ctx.store.appendTimeline(id, { generation, type: PR_STARTED, message: startedMessage(branch, remote, head) }).catch(() => undefined);
}

/**
 * Written when the push failed (best effort): without it, a refused push's trace and a push the
 * person then made by hand of the same tip read as a push of Paddock's stopped before its record.
 */
export async function notePushFailed(ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> {
  await ctx.store.appendTimeline(id, { generation, type: PR_PUSH_FAILED, message: `push of ${branch} at ${head} to ${remote} failed` }).catch(() => undefined);
}

/**
 * Whether an earlier pull request pushed `head` of `branch` to `remote` and was stopped before it
 * recorded it. The caller has found that the remote-tracking base (not the local one, which may hold
 * commits the remote never got) has every commit of `head`. Here: the last trace names this tip and
 * remote; no failed push and no landing of any kind is written after it, and the record holds no
 * landing newer than it (a merge recorded since must not be overwritten); and the remote-tracking
 * branch, which the push itself set, holds that very tip or is gone (pruned once the host deleted
 * the merged branch: the base having every commit is then the proof). A history that cannot be read says no.
 */
export async function pushedByStoppedRun(ctx: OperationContext, job: JobRecord, remote: string, base: string, head: string): Promise<boolean> {
  const { id, repo } = job;
  const branch = job.branch!;
  // Recorded already (a run killed between the record and its history line): said as before, not recorded again.
  if (job.landing?.kind === 'pr' && job.landing.into === `${remote}/${base}` && job.landing.commit === head) return false;
  const timeline = await ctx.store.readTimeline(id).catch(() => []);
  const started = timeline.map((e) => e.type).lastIndexOf(PR_STARTED);
  if (started < 0 || timeline[started].message !== startedMessage(branch, remote, head)) return false;
  if (timeline.slice(started + 1).some((e) => e.type === PR_PUSH_FAILED || isLandingEntry(e))) return false;
  if (job.landing && job.landing.at >= timeline[started].at) return false;
  const tracking = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/remotes/${remote}/${branch}^{commit}`], { cwd: repo, allowFailure: true });
  if (tracking.code === 0) return tracking.stdout.trim() === head;
  // Not there: either pruned, or never made. Only "no such ref" counts as gone, not a git that failed.
  const exists = await runGit(['show-ref', '--verify', '--quiet', `refs/remotes/${remote}/${branch}`], { cwd: repo, allowFailure: true });
  return exists.code === 1;
}
