/**
 * A `paddock pr` stopped after its push and before its record: the branch is on the remote, the
 * record says nothing. Like an apply (apply.ts), the pull request writes a trace in the agent's
 * history before it pushes (`pr-started`), a line as soon as the push returned (`pr-pushed`, before
 * gh), and a line when the push or gh failed. A later run records the earlier pull request as found
 * later, without pushing again, when the last trace names this very tip and remote, no failure and no
 * landing of any kind came after it, and either
 * - a `pr-pushed` line follows it: the push went through, whatever the base holds now and whether or
 *   not the host deleted the branch since (a squash- or rebase-merge, then a pruning fetch); or
 * - the run was stopped in the instant between the push and that line: then only when the
 *   remote-tracking branch (which the push set) holds that very tip and the remote's base (as last
 *   fetched) has every commit of it — nothing is left to propose.
 * A trace alone with no remote-tracking branch proves nothing: the run may have been stopped before
 * its push reached the remote (or, in a single-branch clone, a push sets no remote-tracking branch).
 * A push the person made by hand leaves no trace of its own; what is still taken wrongly: `EarlierPush`.
 */
import { runGit } from '../git';
import type { JobRecord, TimelineEntry } from '../store/schema';
import type { OperationContext } from './context';
import { isLandingEntry } from './recordLanding';

/** The history's word for a pull request about to push. */
const PR_STARTED = 'pr-started';
/** The history's word for a push that returned: the branch is on the remote at that tip. */
const PR_PUSHED = 'pr-pushed';
/** The history's word for a push that failed: the trace before it proves nothing. */
const PR_PUSH_FAILED = 'pr-push-failed';
/** The history's word for gh failing after the push: the next run pushes and asks gh again, as before. */
const PR_OPEN_FAILED = 'pr-open-failed';

const pushWords = (branch: string, remote: string, head: string): string => `push of ${branch} at ${head} to ${remote}`;

/** A history line of the pull request's; a history that cannot be written (a full disk) does not stop it. */
async function note(ctx: OperationContext, id: string, generation: number, type: string, message: string): Promise<void> {
  await ctx.store.appendTimeline(id, { generation, type, message }).catch(() => undefined);
}

/** Written before the push. */
export const notePushStarting = (ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> =>
  note(ctx, id, generation, PR_STARTED, `${pushWords(branch, remote, head)} started`);

/** Written as soon as the push returned, before gh: from here on the branch is on the remote whatever happens. */
export const notePushed = (ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> =>
  note(ctx, id, generation, PR_PUSHED, `${pushWords(branch, remote, head)} done`);

/**
 * Written when the push failed (an interrupted one too): without it, a refused push's trace and a push
 * the person then made by hand of the same tip read as a push of Paddock's stopped before its record.
 */
export const notePushFailed = (ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> =>
  note(ctx, id, generation, PR_PUSH_FAILED, `${pushWords(branch, remote, head)} failed`);

/** Written when gh failed after the push: the run said so, and the next one asks gh again rather than take it as done. */
export const noteOpenFailed = (ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> =>
  note(ctx, id, generation, PR_OPEN_FAILED, `pull request of ${branch} at ${head} on ${remote} not opened`);

/**
 * What the history says of an earlier pull request of `head` to `remote` (into `base`) stopped before
 * its record: `pushed` (its push returned), `traced` (no line says it returned: the caller takes it
 * only when the remote's base has every commit), or null. What this cannot tell, nothing lost by
 * either: a run stopped in the instant between its push and the `pr-pushed` line (or whose line a
 * full disk refused) once its remote-tracking branch is pruned, or in a single-branch clone, counts
 * as none; and a run stopped before its push reached the remote whose very tip the person then pushed
 * by hand to the same remote (the remote-tracking branch then holds it) counts as `traced`.
 */
export type EarlierPush = 'pushed' | 'traced' | null;

export async function earlierPush(ctx: OperationContext, job: JobRecord, remote: string, base: string, head: string): Promise<EarlierPush> {
  const branch = job.branch!;
  // Recorded already (a run killed between the record and its history line): said as before, not recorded again.
  if (job.landing?.kind === 'pr' && job.landing.into === `${remote}/${base}` && job.landing.commit === head) return null;
  const timeline: TimelineEntry[] = await ctx.store.readTimeline(job.id).catch(() => []);
  const started = timeline.map((e) => e.type).lastIndexOf(PR_STARTED);
  const words = pushWords(branch, remote, head);
  if (started < 0 || timeline[started].message !== `${words} started`) return null;
  const after = timeline.slice(started + 1);
  if (after.some((e) => e.type === PR_PUSH_FAILED || e.type === PR_OPEN_FAILED || isLandingEntry(e))) return null;
  // A landing recorded since (its history line lost) must not be overwritten.
  if (job.landing && job.landing.at >= timeline[started].at) return null;
  if (after.some((e) => e.type === PR_PUSHED && e.message === `${words} done`)) return 'pushed';
  const tracking = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/remotes/${remote}/${branch}^{commit}`], { cwd: job.repo, allowFailure: true });
  return tracking.code === 0 && tracking.stdout.trim() === head ? 'traced' : null;
}
