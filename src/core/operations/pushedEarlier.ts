/**
 * A `paddock pr` killed after its push and before its record: the branch is on the remote, the
 * record says nothing. Like an apply (apply.ts), the pull request writes a trace in the agent's
 * history before it pushes; a later run that finds nothing left to propose (the remote's base has
 * every commit: the pull request was merged meanwhile) records the earlier one when that trace
 * names this very tip and remote, no pull request was recorded after it, and the remote-tracking
 * branch says the push went through. A push the person made by hand leaves no trace: nothing is
 * recorded for it, and the refusal is as before.
 */
import { runGit } from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { isLandingEntry } from './recordLanding';

/** The history's word for a pull request about to push. */
const PR_STARTED = 'pr-started';

function startedMessage(branch: string, remote: string, head: string): string {
  return `push of ${branch} at ${head} to ${remote} started`;
}

/** Written before the push; a history that cannot be written (a full disk) does not stop the pull request. */
export async function notePushStarting(ctx: OperationContext, id: string, generation: number, branch: string, remote: string, head: string): Promise<void> {
  await ctx.store.appendTimeline(id, { generation, type: PR_STARTED, message: startedMessage(branch, remote, head) }).catch(() => undefined);
}

/**
 * Whether an earlier pull request pushed `head` of `branch` to `remote` and was stopped before it
 * recorded it: its trace is the last one, with no pull request recorded after it, and the
 * remote-tracking branch (updated by the push itself) holds that very tip. A history that cannot be read says no.
 */
export async function pushedByStoppedRun(ctx: OperationContext, job: JobRecord, remote: string, base: string, head: string): Promise<boolean> {
  const { id, repo } = job;
  const branch = job.branch!;
  // Recorded already (a run killed between the record and its history line): said as before, not recorded again.
  if (job.landing?.kind === 'pr' && job.landing.into === `${remote}/${base}` && job.landing.commit === head) return false;
  const timeline = await ctx.store.readTimeline(id).catch(() => []);
  const started = timeline.map((e) => e.type).lastIndexOf(PR_STARTED);
  if (started < 0 || timeline[started].message !== startedMessage(branch, remote, head)) return false;
  if (timeline.slice(started + 1).some((e) => isLandingEntry(e, 'pr'))) return false;
  const tracking = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/remotes/${remote}/${branch}^{commit}`], { cwd: repo, allowFailure: true });
  return tracking.code === 0 && tracking.stdout.trim() === head;
}
