/**
 * Several attempts at one task (issue 14): starting them as one group, and
 * what a person does to a whole group — stop all, send to all running, keep
 * one (the others cleaned up through the cleanup operation, evidence kept).
 * Each goes through the single-agent operation per attempt, so every rule,
 * lock and capacity check applies to each attempt as to any agent.
 */
import { describeError, usageError } from '../common/errors';
import { newGroupId, profilesForAttempts } from '../attempts/attemptPlan';
import { planStart, type StartRequest } from '../coordinator/startPlan';
import type { JobStore } from '../store';
import type { JobEntry } from '../store/jobReader';
import type { JobRecord } from '../store/schema';
import { okJobs, type OperationContext } from './context';
import type { Operations } from './operations';
import { cleanupUnderWay, heldGroupKeepLock } from './groupLock';
import { canSend, canStop, keepBlocker } from './rules';
import { sendToAgent } from './send';
import { checkStartInput } from './startInput';
import type { CleanupReport, StopAllReport } from './types';

export interface StartAttemptsResult {
  /** The attempts that exist (started, queued, or failed to start), in attempt order. */
  jobs: JobRecord[];
  /** Attempts that failed to start, with the reason. */
  failed: { index: number; reason: string }[];
}

export interface SendToGroupReport {
  sent: string[];
  skipped: { id: string; reason: string }[];
}

export interface KeepReport {
  kept: string;
  cleaned: CleanupReport[];
  failed: { id: string; reason: string }[];
  /** Left alone: a person's Clean Up of it was under way, or a person retried it during the keep. */
  skipped: { id: string; reason: string }[];
}

/** The attempts of a group that are still in the store, in attempt order; an unknown group is bad input. */
export async function groupMembers(store: JobStore, groupId: string): Promise<JobRecord[]> {
  return groupMembersOf(await store.list(), groupId);
}

/** `groupMembers` from a listing already read. */
export function groupMembersOf(entries: readonly JobEntry[], groupId: string): JobRecord[] {
  const members = okJobs(entries)
    .filter((j) => j.group?.id === groupId)
    .sort((a, b) => a.group!.index - b.group!.index || a.id.localeCompare(b.id));
  if (members.length === 0) throw usageError(`No group ${groupId} exists (or all its attempts were forgotten).`, 'NOT_FOUND');
  return members;
}

export class GroupOperations {
  constructor(
    private readonly ctx: OperationContext,
    private readonly ops: Operations,
  ) {}

  /**
   * Starts `attempts` agents on one request, with profiles dealt round-robin (`profilesForAttempts`).
   * One attempt is a plain agent (no group). Each start is the ordinary start operation: its own
   * worktree and branch, the queue and capacity as for any agent.
   */
  async startAttempts(request: StartRequest, attempts: number, profiles: readonly string[] = []): Promise<StartAttemptsResult> {
    const assigned = profilesForAttempts(attempts, profiles);
    if (attempts === 1) return { jobs: [await this.ops.start({ ...request, profile: assigned[0] ?? request.profile })], failed: [] };
    // Every attempt's request is checked before the first one is created: bad input creates nothing.
    const plans = assigned.map((profile) => planStart({ ...request, profile: profile ?? request.profile }, this.ctx.settings(), this.ctx.env));
    await checkStartInput(request.repo, plans, this.ctx.env);
    const group = { id: newGroupId(), title: plans[0].title, size: attempts };
    const jobs: JobRecord[] = [];
    const failed: StartAttemptsResult['failed'] = [];
    for (let i = 0; i < attempts; i++) {
      const index = i + 1;
      try {
        jobs.push(await this.ops.start({ ...request, title: group.title, profile: assigned[i] ?? request.profile, group: { ...group, index } }));
      } catch (err) {
        failed.push({ index, reason: describeError(err) });
      }
    }
    // A failed start leaves its record (failed, in the group): list it with the rest.
    const members = await groupMembers(this.ctx.store, group.id).catch(() => jobs);
    return { jobs: members, failed };
  }

  /** Stops every attempt of the group that has not ended. */
  async stopGroup(groupId: string, opts: { force?: boolean } = {}): Promise<StopAllReport> {
    const members = (await groupMembers(this.ctx.store, groupId)).filter(canStop);
    const reports = await Promise.all(
      members.map((j) => this.ops.stop(j.id, opts).then((r) => ({ id: j.id, ok: r.stopped, reason: r.reason }), (err) => ({ id: j.id, ok: false, reason: describeError(err) }))),
    );
    return {
      stopped: reports.filter((r) => r.ok).map((r) => r.id),
      notStopped: reports.filter((r) => !r.ok).map((r) => ({ id: r.id, reason: r.reason ?? 'unknown' })),
    };
  }

  /** Types `text` and Enter into every running or waiting attempt; refused when none is. */
  async sendToGroup(groupId: string, text: string): Promise<SendToGroupReport> {
    const members = await groupMembers(this.ctx.store, groupId);
    const live = members.filter(canSend);
    if (live.length === 0) throw usageError(`No attempt of group ${groupId} is running or waiting.`);
    const report: SendToGroupReport = { sent: [], skipped: members.filter((j) => !canSend(j)).map((j) => ({ id: j.id, reason: j.lifecycle.state })) };
    await Promise.all(
      live.map((j) =>
        sendToAgent(this.ctx.store, j.id, text).then(
          () => report.sent.push(j.id),
          (err) => report.skipped.push({ id: j.id, reason: describeError(err) }),
        ),
      ),
    );
    return report;
  }

  /**
   * Keep This One: every other attempt of the group that is not cleaned up yet is cleaned up now
   * (stopped first if running), through the cleanup operation — its snapshot ref, patch and archive
   * saved, its branch kept when it has commits found nowhere else. The kept attempt is untouched.
   */
  async keepAttempt(id: string): Promise<KeepReport> {
    const asked = await this.ctx.store.read(id);
    const refused = keepBlocker(asked);
    if (refused) throw usageError(refused);
    // Only the group's lock, exclusive: a person's Clean Up of an attempt of the group enters it for a
    // moment (then holds its own marker), so none enters during the keep; a Stop, retry, landing or
    // restore takes only the attempt's job lock and goes on at once.
    const group = await heldGroupKeepLock(this.ctx.store, asked.group!.id, id);
    try {
      return await this.keepLocked(id);
    } finally {
      await group.release();
    }
  }

  /** Under the group's keep lock: no person's Clean Up of an attempt of the group enters meanwhile. */
  private async keepLocked(id: string): Promise<KeepReport> {
    // Read again: another keep of this group, or a Clean Up of this attempt, may have run while this one waited.
    const job = await this.ctx.store.read(id);
    const blocker = keepBlocker(job);
    if (blocker) throw usageError(blocker);
    const gid = job.group!.id;
    // A Clean Up of the kept attempt entered before this keep (waiting for its slot, say) would remove it beside the keep.
    if (await cleanupUnderWay(this.ctx.store, gid, id)) throw usageError(`Agent ${id} is being cleaned up in another window or process; it cannot be kept.`);
    const others = (await groupMembers(this.ctx.store, gid)).filter((j) => j.id !== id && j.cleanup?.phase !== 'complete');
    const report: KeepReport = { kept: id, cleaned: [], failed: [], skipped: [] };
    for (const other of others) {
      try {
        // A person's Clean Up of it already under way finishes it; the keep does not run beside it.
        if (await cleanupUnderWay(this.ctx.store, gid, other.id)) {
          report.skipped.push({ id: other.id, reason: 'a Clean Up of it was under way in another window or process' });
          continue;
        }
        // Read as the keep began: a person's Retry of it since is a later choice, not undone (checked under its job lock).
        const cleaned = await this.ops.cleanupForKeep(other.id, other);
        if (cleaned) report.cleaned.push(cleaned);
        else report.skipped.push({ id: other.id, reason: 'it was retried during the keep' });
      } catch (err) {
        report.failed.push({ id: other.id, reason: describeError(err) });
      }
    }
    return report;
  }
}
